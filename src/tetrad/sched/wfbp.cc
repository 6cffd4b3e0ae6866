// WFBP: one message per tensor, in ready order (wfbp.h).
//
// α–β cost on the channel: Σ_i [2(p−1)·α + 2(p−1)/p·b_i·β] for the ring
// all-reduce, one start-up latency per tensor.
#include "tetrad/sched/wfbp.h"

#include "tetrad/sched/plan_params.h"

namespace tetrad::sched {

SchedulePlan wfbpPlan(std::span<const TensorSlot> slots) {
  checkSlots(slots);
  SchedulePlan plan;
  plan.name = "wfbp";
  plan.buckets.reserve(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) plan.buckets.push_back({i, 1, slots[i].bytes});
  return plan;
}

PlanFunction wfbpPlanOf(const SchedulePlanSpec& spec) {
  expectPlanParams(spec, 0);
  return [](std::span<const TensorSlot> slots, const CommCost&) { return wfbpPlan(slots); };
}

}  // namespace tetrad::sched
