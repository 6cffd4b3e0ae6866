// PsShard: the server loop of one parameter-server shard (internal to
// arch/ps), run by a dedicated server rank's main function or by a task
// inside a colocated worker.
//
// It receives every request with recvAny on the layout's request tag
// (ps_protocol.h) and serves the partitions the plan gives this shard:
//   kSum mode (bsp, local): per partition and round, keep each worker's
//     packet; when all W have arrived, decode them in rank order (so sums
//     are deterministic) into the sum, encode the sum with the pull
//     compressor once and send it to every worker.
//   kWeights mode (ssp:S, asp): hold the partition's weights (seeded by
//     worker 0's kInit). A push from worker w at clock c adds the decoded
//     model change divided by W to the weights (W pushes — one iteration's
//     work — move the model as one BSP step on the averaged gradient; with
//     one worker this is sequential SGD), records its staleness c − m, where
//     m is the slowest worker's clock when w last read the weights, and
//     answers with the current weights once the slowest worker has reached
//     c + 1 − S (at once under asp). Finished workers no longer hold others
//     back. The reply says stop once the run's update limit is reached.
// The loop ends when every worker has sent kDone. Replies are non-blocking
// sends whose buffers live until they complete.
//
// Checkpoints (ps_shard_state.cc): one worker answers for each shard
// (PsLayout::checkpointOwner). At a quiescent cut — no round begun, no reply
// held back — it sends kCheckpoint and the shard replies with its whole
// state: per partition the weights, every worker's clocks and last
// staleness, the pull compressor's states, the staleness histogram, and the
// server rank's own books (exchange.h's ServerBooks). A resumed run sends
// that state back with kRestore before any push.
//
// Thread-safety: owned by the task that runs it.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "tetrad/arch/ps/ps_layout.h"
#include "tetrad/compress/compressor.h"

namespace tetrad::ps {

class PsShard {
 public:
  PsShard(const PsLayout& layout, int shard, uint64_t seed);
  ~PsShard();

  // Serves until every worker is done; errors name this shard and its rank.
  // `books` (may be null): a dedicated server rank's books, kept in the
  // shard's checkpoints.
  void run(Transport& world, ServerBooks* books);
  ExchangeStats stats() const { return stats_; }

 private:
  struct Slot {  // one partition's server state
    size_t partition = 0;
    size_t count = 0;
    // kSum: this round's packets, one per worker, and the stream they belong to.
    std::vector<ByteBuffer> packets;
    int received = 0;
    int stream = -1;
    std::vector<float> sum;
    CompressorState pullStates[kExchangeStreams];
    // kWeights.
    std::vector<float> weights, change;
    bool seeded = false;
    std::vector<int64_t> clock;          // updates applied, per worker
    std::vector<int64_t> readClock;      // slowest clock when the worker last read
    std::vector<int64_t> waitingFor;     // slowest clock its pending reply needs; -1: none
    std::vector<int64_t> lastStaleness;  // of the worker's last applied update
    int64_t applied = 0;
  };
  void onRequest(Transport& world, int worker, ConstBytes bytes);
  void onSum(Transport& world, Slot& slot, int worker, ConstBytes packet, int stream);
  void onPush(Transport& world, Slot& slot, int worker, int64_t clock, ConstBytes packet);
  void replyWhenAllowed(Transport& world);
  void reply(Transport& world, int worker, Slot& slot, ByteBuffer bytes);
  ByteBuffer weightsReply(Slot& slot, int worker);
  int64_t slowestClock(const Slot& slot) const;
  std::string awaited() const;  // the workers this shard waits for, for errors
  void reapReplies(bool all);
  // Checkpoints (ps_shard_state.cc).
  void onCheckpoint(Transport& world, int worker, size_t requestBytes);
  void onRestore(Transport& world, int worker, ConstBytes state);
  void checkQuiescent(int worker) const;
  ByteBuffer saveState() const;
  void loadState(ConstBytes state);

  const PsLayout& layout_;
  int shard_;
  CompressorPtr push_, pull_;
  std::vector<Slot> slots_;           // this shard's partitions
  std::vector<int> slotOfPartition_;  // partition id -> slot index, or -1
  std::vector<bool> done_;
  int doneCount_ = 0;
  struct InFlight {
    ByteBuffer bytes;
    RequestPtr request;
  };
  std::deque<InFlight> replies_;
  ExchangeStats stats_;
  ServerBooks* books_ = nullptr;
};

}  // namespace tetrad::ps
