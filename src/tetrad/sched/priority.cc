// Priority scheduling with tensor partitioning (priority.h).
//
// α–β cost on the channel (ring all-reduce on p ranks, chunks of b_c bytes):
// Σ_chunks [2(p−1)·α + 2(p−1)/p·b_c·β].
#include "tetrad/sched/priority.h"

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/sched/plan_params.h"

namespace tetrad::sched {

SchedulePlan partitionPlan(std::span<const TensorSlot> slots, uint64_t partBytes) {
  TETRAD_CHECK(partBytes >= sizeof(float), InvalidArgument,
               "priority: partition size must be at least 4 bytes (one float), got {}", partBytes);
  checkSlots(slots);
  const uint64_t part = partBytes / sizeof(float) * sizeof(float);
  SchedulePlan plan;
  plan.name = fmt::format("priority:{}", partBytes);
  plan.order = SendOrder::kFrontLayerFirst;
  for (size_t s = 0; s < slots.size(); ++s) {
    for (uint64_t offset = 0; offset < slots[s].bytes; offset += part) {
      plan.chunks.push_back({s, offset, std::min(part, slots[s].bytes - offset), slots[s].layer});
    }
  }
  return plan;
}

size_t ChunkQueue::pop() {
  TETRAD_CHECK(!heap_.empty(), InvalidArgument, "priority: no ready chunk to send");
  const size_t index = heap_.top().second;
  heap_.pop();
  return index;
}

std::vector<MessageTiming> prioritySendOrder(std::span<const TensorSlot> slots,
                                             const SchedulePlan& plan, const CommCost& cost) {
  checkPlan(slots, plan);
  TETRAD_CHECK(plan.order == SendOrder::kFrontLayerFirst, InvalidArgument,
               "plan '{}' is not a partitioned (priority) plan", plan.name);
  const std::vector<double> ready = slotReadyTimes(slots);
  const std::vector<Chunk>& chunks = plan.chunks;
  std::vector<MessageTiming> order;
  order.reserve(chunks.size());
  ChunkQueue queue;
  size_t next = 0;  // the first chunk not yet ready
  double now = 0;
  while (order.size() < chunks.size()) {
    while (next < chunks.size() && ready[chunks[next].slot] <= now) {
      queue.push(next, chunks[next].layer);
      ++next;
    }
    if (queue.empty()) {  // idle until the next tensor is ready
      now = ready[chunks[next].slot];
      continue;
    }
    const size_t c = queue.pop();
    const double end = now + cost.seconds(chunks[c].bytes);
    order.push_back({c, now, end});
    now = end;
  }
  return order;
}

PlanFunction priorityPlanOf(const SchedulePlanSpec& spec) {
  expectPlanParams(spec, 1);
  const uint64_t part = planBytesParam(spec, 0, kDefaultPartitionBytes, sizeof(float),
                                       "partition size must be at least 4 bytes (e.g. 1MiB)");
  return [part](std::span<const TensorSlot> slots, const CommCost&) {
    return partitionPlan(slots, part);
  };
}

}  // namespace tetrad::sched
