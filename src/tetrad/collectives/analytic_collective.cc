// Collectives on the analytic engine (analytic_collective.h): the recording
// transport, the per-signature cache of replays, and the entry points.
#include "tetrad/collectives/analytic_collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "tetrad/collectives/analytic_replay.h"
#include "tetrad/core/error.h"
#include "tetrad/transport/analytic_network.h"

namespace tetrad::detail {
namespace {

// One rank's side of a collective, written down instead of sent. Payload-
// free: receives leave their buffers untouched, as the simulator's
// payload-free mode does, so the algorithms skip their arithmetic.
class RecordingTransport final : public Transport {
 public:
  RecordingTransport(int rank, int size, int ranksPerNode, std::vector<RecordedOp>& ops)
      : Transport(rank, size, 1e300), ranksPerNode_(ranksPerNode), ops_(ops) {}

  void send(int peer, Tag tag, ConstBytes data) override {
    wait(post(RecordedOp::Kind::kSend, peer, tag, data.size()));
  }
  void recv(int peer, Tag tag, MutableBytes data) override {
    wait(post(RecordedOp::Kind::kRecv, peer, tag, data.size()));
  }
  ByteBuffer recvMessage(int peer, Tag tag) override {
    TETRAD_FAIL(Unsupported,
                "rank {}: the analytic engine cannot replay a receive of unknown size (from "
                "rank {}, tag {}) inside a collective",
                rank(), peer, tag);
  }
  Message recvAny(Tag tag) override {
    TETRAD_FAIL(Unsupported,
                "rank {}: the analytic engine cannot replay a receive from any rank (tag {})",
                rank(), tag);
  }
  RequestPtr isend(int peer, Tag tag, ConstBytes data) override {
    return std::make_unique<Recorded>(*this, post(RecordedOp::Kind::kSend, peer, tag, data.size()));
  }
  RequestPtr irecv(int peer, Tag tag, MutableBytes data) override {
    return std::make_unique<Recorded>(*this, post(RecordedOp::Kind::kRecv, peer, tag, data.size()));
  }
  double now() const override { return 0; }
  void compute(double seconds) override { delay(seconds); }
  void sleepFor(double seconds) override { delay(seconds); }
  TaskPtr spawn(std::string name, std::function<void()>) override {
    TETRAD_FAIL(Unsupported, "the analytic engine cannot replay a task ('{}') inside a collective",
                name);
  }
  LocalQueuePtr makeQueue(std::string name) override {
    TETRAD_FAIL(Unsupported, "the analytic engine cannot replay a queue ('{}') inside a collective",
                name);
  }
  bool carriesPayload() const override { return false; }
  std::string engine() const override { return "sim"; }
  bool simulatedClock() const override { return true; }
  int ranksPerNode() const override { return ranksPerNode_; }

 private:
  class Recorded final : public Request {
   public:
    Recorded(RecordingTransport& owner, int request) : owner_(owner), request_(request) {}
    void wait() override {
      if (!waited_) owner_.wait(request_);
      waited_ = true;
    }
    bool test() override {
      TETRAD_FAIL(Unsupported, "the analytic engine cannot replay a polled request");
    }

   private:
    RecordingTransport& owner_;
    int request_;
    bool waited_ = false;
  };

  int post(RecordedOp::Kind kind, int peer, Tag tag, uint64_t bytes) {
    checkPeer(peer, kind == RecordedOp::Kind::kSend ? "send" : "recv");
    RecordedOp op;
    op.kind = kind;
    op.peer = peer;
    op.tag = tag;
    op.bytes = bytes;
    op.request = requests_++;
    ops_.push_back(op);
    return op.request;
  }
  void wait(int request) {
    RecordedOp op;
    op.kind = RecordedOp::Kind::kWait;
    op.request = request;
    ops_.push_back(op);
  }
  void delay(double seconds) {
    if (seconds <= 0) return;
    RecordedOp op;
    op.kind = RecordedOp::Kind::kDelay;
    op.seconds = seconds;
    ops_.push_back(op);
  }

  int ranksPerNode_;
  std::vector<RecordedOp>& ops_;
  int requests_ = 0;
};

// Replays by network, group size and signature. Bounded: cleared when full
// (a run repeats a handful of distinct calls).
class ReplayCache {
 public:
  std::shared_ptr<const ReplayResult> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = replays_.find(key);
    return it == replays_.end() ? nullptr : it->second;
  }
  void add(const std::string& key, std::shared_ptr<const ReplayResult> replay) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (replays_.size() >= kMaxEntries) replays_.clear();
    replays_[key] = std::move(replay);
  }

 private:
  static constexpr size_t kMaxEntries = 256;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const ReplayResult>> replays_;
};

ReplayCache& replayCache() {
  static ReplayCache cache;
  return cache;
}

using Recorder = std::function<void(int rank, std::vector<RecordedOp>& ops)>;

// Every rank's operations recorded by `record`, timed on `network`.
ReplayResult recordAndReplay(int p, AnalyticNetwork& network, const Recorder& record) {
  std::vector<std::vector<RecordedOp>> ops(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) record(r, ops[size_t(r)]);
  return replayMessages(ops, [&network](int from, int to, uint64_t bytes) {
    return network.messageSeconds(from, to, bytes);
  });
}

// The byte all-gather's ring (allgather_bytes.cc) computed step by step
// instead of recorded: p(p-1) messages in O(p) memory (10,000 ranks would
// otherwise record 400 million operations). Step s of rank r forwards the
// packet of rank r - s to r + 1, once r has finished step s - 1 and r + 1
// has posted its receive (finished its own step s - 1); the step ends when
// both that send and the receive from r - 1 have.
ReplayResult byteRingReplay(AnalyticNetwork& network, const std::vector<uint64_t>& sizes) {
  const int p = static_cast<int>(sizes.size());
  std::vector<double> finished(static_cast<size_t>(p), 0.0);
  std::vector<double> sendEnd(static_cast<size_t>(p), 0.0);
  for (int step = 0; step < p - 1; ++step) {
    for (int r = 0; r < p; ++r) {
      const int right = (r + 1) % p;
      const uint64_t bytes = sizes[size_t((r - step + p) % p)];
      sendEnd[size_t(r)] = std::max(finished[size_t(r)], finished[size_t(right)]) +
                           network.messageSeconds(r, right, bytes);
    }
    for (int r = 0; r < p; ++r) {
      finished[size_t(r)] = std::max(sendEnd[size_t(r)], sendEnd[size_t((r + p - 1) % p)]);
    }
  }
  uint64_t total = 0;
  for (uint64_t size : sizes) total += size;
  ReplayResult result;
  result.finish = std::move(finished);
  result.trafficBegin.push_back(0);
  for (int r = 0; r < p; ++r) {
    const int right = (r + 1) % p, left = (r + p - 1) % p;
    // Sends every packet but its right neighbour's; receives all but its own.
    PeerTraffic out{right, total - sizes[size_t(right)], uint64_t(p - 1), 0, 0};
    PeerTraffic in{left, 0, 0, total - sizes[size_t(r)], uint64_t(p - 1)};
    if (right == left) {
      out.bytesReceived = in.bytesReceived;
      out.messagesReceived = in.messagesReceived;
      result.traffic.push_back(out);
    } else if (left < right) {
      result.traffic.push_back(in);
      result.traffic.push_back(out);
    } else {
      result.traffic.push_back(out);
      result.traffic.push_back(in);
    }
    result.trafficBegin.push_back(uint32_t(result.traffic.size()));
  }
  return result;
}

// The meeting's replay: from the cache, else computed by `replay` (once per
// meeting: the first rank to leave it).
const ReplayResult& replayOf(Transport& transport, AnalyticNetwork& network, Meeting& meeting,
                             const std::function<ReplayResult()>& replay) {
  if (!meeting.result) {
    const int p = transport.size();
    const std::string key = fmt::format("{}|{}|{}|{}", network.describe(), p,
                                        transport.ranksPerNode(), meeting.signature);
    std::shared_ptr<const ReplayResult> cached = replayCache().find(key);
    if (!cached) {
      cached = std::make_shared<const ReplayResult>(replay());
      replayCache().add(key, cached);
    }
    meeting.result = cached;
  }
  return *static_cast<const ReplayResult*>(meeting.result.get());
}

std::shared_ptr<Meeting> meet(Transport& transport, AnalyticNetwork& network,
                              const std::string& signature, Tag tag, uint64_t value) {
  std::shared_ptr<Meeting> meeting =
      network.meet(transport.rank(), transport.size(), tag, signature, value, transport.timeout());
  TETRAD_CHECK(meeting->mismatchRank < 0, ProtocolError,
               "ranks disagree on a collective (tag {}): {} on one rank, {} on rank {}", tag,
               meeting->signature, meeting->mismatchSignature, meeting->mismatchRank);
  return meeting;
}

// Charges this rank its part of `replay`: its finish time, then its traffic.
void apply(Transport& transport, const ReplayResult& replay) {
  const size_t r = static_cast<size_t>(transport.rank());
  transport.sleepFor(replay.finish[r]);
  for (uint32_t i = replay.trafficBegin[r]; i < replay.trafficBegin[r + 1]; ++i) {
    const PeerTraffic& t = replay.traffic[i];
    transport.countTraffic(t.peer, t.bytesSent, t.messagesSent, t.bytesReceived,
                           t.messagesReceived);
  }
}

}  // namespace

bool runAnalytically(Transport& transport, const std::string& signature, Tag tag,
                     size_t scratchBytes, const AnalyticAlgorithm& algorithm) {
  AnalyticNetwork* network = transport.analytic();
  if (network == nullptr) return false;
  std::shared_ptr<Meeting> meeting = meet(transport, *network, signature, tag, 0);
  // One stand-in buffer for every recording (allocated only when a replay
  // is recorded): the algorithms may move local blocks around in it.
  ByteBuffer scratch;
  const ReplayResult& replay = replayOf(transport, *network, *meeting, [&] {
    return recordAndReplay(transport.size(), *network, [&](int rank, std::vector<RecordedOp>& ops) {
      if (scratch.size() != scratchBytes) scratch = ByteBuffer(scratchBytes);
      RecordingTransport recorder(rank, transport.size(), transport.ranksPerNode(), ops);
      algorithm(recorder, MutableBytes(scratch));
    });
  });
  apply(transport, replay);
  return true;
}

std::optional<std::vector<uint64_t>> allgatherBytesAnalytically(Transport& transport,
                                                                uint64_t bytes, Tag tag) {
  AnalyticNetwork* network = transport.analytic();
  if (network == nullptr) return std::nullopt;
  // Packet sizes differ across ranks: they are the meeting's values, and
  // part of the replay's key below (not of the signature ranks compare).
  std::shared_ptr<Meeting> meeting = meet(transport, *network, "byte all-gather ring", tag, bytes);
  const std::vector<uint64_t>& sizes = meeting->values;
  if (!meeting->result) {
    std::string withSizes = meeting->signature;
    for (uint64_t size : sizes) withSizes += fmt::format(",{}", size);
    meeting->signature = std::move(withSizes);
  }
  const ReplayResult& replay =
      replayOf(transport, *network, *meeting, [&] { return byteRingReplay(*network, sizes); });
  apply(transport, replay);
  return sizes;
}

}  // namespace tetrad::detail
