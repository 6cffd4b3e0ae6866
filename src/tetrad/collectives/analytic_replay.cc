// replayMessages (analytic_replay.h): every rank runs its list until it
// waits for a request whose transfer is not matched yet; a match computes
// the transfer's end at once (no contention: it depends only on the two post
// times) and wakes a rank waiting for it. Each operation is visited once:
// O(operations + messages) with hashing per message.
#include "tetrad/collectives/analytic_replay.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>

#include "tetrad/core/error.h"

namespace tetrad::detail {
namespace {

constexpr double kPending = std::numeric_limits<double>::quiet_NaN();

struct Post {
  int rank = 0;
  int request = 0;
  double time = 0;
  uint64_t bytes = 0;
};

struct Channel {
  std::deque<Post> sends, recvs;
};

class Replayer {
 public:
  Replayer(const std::vector<std::vector<RecordedOp>>& ops, const MessageSeconds& seconds)
      : ops_(ops), seconds_(seconds), ranks_(ops.size()) {
    for (size_t r = 0; r < ops.size(); ++r) {
      int requests = 0;
      for (const RecordedOp& op : ops[r]) requests = std::max(requests, op.request + 1);
      ranks_[r].ends.assign(size_t(requests), kPending);
    }
  }

  ReplayResult run() {
    std::vector<int> ready(ops_.size());
    for (size_t r = 0; r < ops_.size(); ++r) ready[r] = int(ops_.size() - 1 - r);
    ready_ = std::move(ready);
    while (!ready_.empty()) {
      const int r = ready_.back();
      ready_.pop_back();
      advance(r);
    }
    ReplayResult result;
    result.trafficBegin.push_back(0);
    for (size_t r = 0; r < ops_.size(); ++r) {
      const RankState& state = ranks_[r];
      if (state.pc < ops_[r].size()) stuck(int(r));
      result.finish.push_back(state.clock);
      for (const auto& [peer, traffic] : state.traffic) result.traffic.push_back(traffic);
      result.trafficBegin.push_back(uint32_t(result.traffic.size()));
    }
    return result;
  }

 private:
  struct RankState {
    size_t pc = 0;
    double clock = 0;
    int waitingOn = -1;
    std::vector<double> ends;  // per request: its transfer's end, NaN until matched
    std::map<int, PeerTraffic> traffic;
  };

  static uint64_t channelKey(int from, int to, Tag tag) {
    return (uint64_t(uint32_t(from)) << 42) ^ (uint64_t(uint32_t(to)) << 21) ^ uint64_t(tag) ^
           (uint64_t(tag) << 52);
  }
  Channel& channel(int from, int to, Tag tag) { return channels_[ChannelId{from, to, tag}]; }

  void advance(int r) {
    RankState& state = ranks_[size_t(r)];
    const std::vector<RecordedOp>& ops = ops_[size_t(r)];
    while (state.pc < ops.size()) {
      const RecordedOp& op = ops[state.pc];
      switch (op.kind) {
        case RecordedOp::Kind::kSend: {
          Channel& c = channel(r, op.peer, op.tag);
          Post send{r, op.request, state.clock, op.bytes};
          if (c.recvs.empty()) {
            c.sends.push_back(send);
          } else {
            const Post recv = c.recvs.front();
            c.recvs.pop_front();
            match(send, recv, op.tag);
          }
          break;
        }
        case RecordedOp::Kind::kRecv: {
          Channel& c = channel(op.peer, r, op.tag);
          Post recv{r, op.request, state.clock, op.bytes};
          if (c.sends.empty()) {
            c.recvs.push_back(recv);
          } else {
            const Post send = c.sends.front();
            c.sends.pop_front();
            match(send, recv, op.tag);
          }
          break;
        }
        case RecordedOp::Kind::kWait: {
          const double end = state.ends[size_t(op.request)];
          if (std::isnan(end)) {
            state.waitingOn = op.request;
            return;
          }
          state.clock = std::max(state.clock, end);
          break;
        }
        case RecordedOp::Kind::kDelay:
          state.clock += op.seconds;
          break;
      }
      ++state.pc;
    }
  }

  void match(const Post& send, const Post& recv, Tag tag) {
    TETRAD_CHECK(send.bytes == recv.bytes, ProtocolError,
                 "rank {}: message from rank {} (tag {}) has {} bytes, the receiver expected {}",
                 recv.rank, send.rank, tag, send.bytes, recv.bytes);
    const double end = std::max(send.time, recv.time) + seconds_(send.rank, recv.rank, send.bytes);
    complete(send.rank, send.request, end);
    complete(recv.rank, recv.request, end);
    if (send.rank != recv.rank) {
      PeerTraffic& out = ranks_[size_t(send.rank)].traffic[recv.rank];
      out.peer = recv.rank;
      out.bytesSent += send.bytes;
      ++out.messagesSent;
      PeerTraffic& in = ranks_[size_t(recv.rank)].traffic[send.rank];
      in.peer = send.rank;
      in.bytesReceived += send.bytes;
      ++in.messagesReceived;
    }
  }

  void complete(int rank, int request, double end) {
    RankState& state = ranks_[size_t(rank)];
    state.ends[size_t(request)] = end;
    if (state.waitingOn == request) {
      state.waitingOn = -1;
      ready_.push_back(rank);
    }
  }

  [[noreturn]] void stuck(int r) const {
    const RankState& state = ranks_[size_t(r)];
    const std::vector<RecordedOp>& ops = ops_[size_t(r)];
    for (const RecordedOp& op : ops) {
      if (op.request == state.waitingOn && op.kind != RecordedOp::Kind::kWait) {
        TETRAD_FAIL(ProtocolError,
                    "rank {}: the collective cannot finish: its {} rank {} (tag {}, {} bytes) "
                    "is never matched",
                    r, op.kind == RecordedOp::Kind::kSend ? "send to" : "receive from", op.peer,
                    op.tag, op.bytes);
      }
    }
    TETRAD_FAIL(ProtocolError, "rank {}: the collective cannot finish (operation {} of {})", r,
                state.pc + 1, ops.size());
  }

  struct ChannelId {
    int from, to;
    Tag tag;
    bool operator==(const ChannelId&) const = default;
  };
  struct ChannelHash {
    size_t operator()(const ChannelId& id) const { return channelKey(id.from, id.to, id.tag); }
  };

  const std::vector<std::vector<RecordedOp>>& ops_;
  const MessageSeconds& seconds_;
  std::vector<RankState> ranks_;
  std::vector<int> ready_;
  std::unordered_map<ChannelId, Channel, ChannelHash> channels_;
};

}  // namespace

ReplayResult replayMessages(const std::vector<std::vector<RecordedOp>>& ops,
                            const MessageSeconds& seconds) {
  return Replayer(ops, seconds).run();
}

}  // namespace tetrad::detail
