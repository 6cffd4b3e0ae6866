// Priority scheduling with tensor partitioning (ByteScheduler, Peng et al.,
// SOSP 2019; P3, Jayarajan et al., SysML 2019): every tensor is cut into
// chunks of at most PART bytes, and whenever the channel is free the ready
// chunk whose layer is nearest the front of the network goes first. The next
// iteration's forward pass needs the front layers first, so their updates
// arriving first lets it start while the back layers are still exchanged;
// cutting tensors bounds how long a late front-layer gradient waits behind a
// large back-layer message (preemption at chunk boundaries).
//
//   partitionPlan      the chunks, listed in ready order (slot, then offset);
//                      a chunk holds whole floats: PART is rounded down to a
//                      multiple of 4 bytes.
//   ChunkQueue         the run-time ordering: push a chunk when its tensor is
//                      ready, pop the one to send next (smallest layer index;
//                      ties in ready order). The trainer's communication task
//                      uses it as is.
//   prioritySendOrder  the plan as a function of the ready events: the send
//                      order and times on one channel that never idles while
//                      a chunk is ready.
//
// Cost (α–β, ring all-reduce on p ranks, a tensor of b bytes in ⌈b/PART⌉
// chunks): Σ_chunks [2(p−1)·α + 2(p−1)/p·b_c·β], i.e. one start-up latency
// per chunk; smaller PART preempts sooner but pays more start-ups.
//
// Pure functions; a ChunkQueue belongs to one thread (the caller guards it).
#pragma once

#include <cstdint>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/comm_cost.h"
#include "tetrad/sched/plan_spec.h"

namespace tetrad::sched {

inline constexpr uint64_t kDefaultPartitionBytes = uint64_t{1} << 20;  // 1 MiB

// Throws InvalidArgument when partBytes < 4 (one float) or on bad slots.
SchedulePlan partitionPlan(std::span<const TensorSlot> slots, uint64_t partBytes);
// The plan parser of `priority[:PART]`, for the registry.
PlanFunction priorityPlanOf(const SchedulePlanSpec& spec);

class ChunkQueue {
 public:
  // Chunk `index` (into the plan's chunk list) of forward layer `layer` is
  // ready.
  void push(size_t index, int layer) { heap_.push({layer, index}); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // The ready chunk to send next: the smallest layer, then the smallest
  // index. Throws InvalidArgument when empty.
  size_t pop();

 private:
  using Key = std::pair<int, size_t>;  // (layer, index): smallest first
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> heap_;
};

// Simulates one channel: chunks of slot s become ready at
// slotReadyTimes(slots)[s]; whenever the channel is free, the ChunkQueue
// picks the next ready chunk; a chunk of b bytes takes cost.seconds(b).
// Returns every chunk once, in send order. Throws InvalidArgument when the
// plan is not a valid partitioned plan of `slots` (checkPlan).
std::vector<MessageTiming> prioritySendOrder(std::span<const TensorSlot> slots,
                                             const SchedulePlan& plan, const CommCost& cost);

}  // namespace tetrad::sched
