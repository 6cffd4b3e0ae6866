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
  void run(Transport& world);
  ExchangeStats stats() const { return stats_; }

 private:
  struct Slot;  // one partition's server state
  void onRequest(Transport& world, int worker, ConstBytes bytes);
  void onSum(Transport& world, Slot& slot, int worker, ConstBytes packet, int stream);
  void onPush(Transport& world, Slot& slot, int worker, int64_t clock, ConstBytes packet);
  void replyWhenAllowed(Transport& world);
  void reply(Transport& world, int worker, Slot& slot, ByteBuffer bytes);
  ByteBuffer weightsReply(Slot& slot, int worker);
  int64_t slowestClock(const Slot& slot) const;
  std::string awaited() const;  // the workers this shard waits for, for errors
  void reapReplies(bool all);

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
};

}  // namespace tetrad::ps
