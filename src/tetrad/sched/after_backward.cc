// Cost per iteration: T_backward + Σ_b T_comm(b) — communication never
// overlaps the backward pass (ring all-reduce of bucket b of n_b floats on p
// workers: 2(p-1)α + 2(p-1)/p·4n_b·β).
#include "tetrad/sched/after_backward.h"

#include "tetrad/sched/plan_params.h"

namespace tetrad {
namespace {

class AfterBackward final : public Scheduler {
 public:
  std::string spec() const override { return "none"; }
  std::vector<BucketRange> plan(const ScheduleInputs& inputs) const override {
    return fuseInOrder(inputs.slots, inputs.bucketBytes);
  }
};

}  // namespace

SchedulerPtr makeAfterBackward(const SpecParams& params) {
  params.expectParamCount(0, 0);
  return std::make_unique<AfterBackward>();
}

}  // namespace tetrad

namespace tetrad::sched {

PlanFunction nonePlanOf(const SchedulePlanSpec& spec) {
  expectPlanParams(spec, 0);
  return [](std::span<const TensorSlot> slots, const CommCost&) {
    checkSlots(slots);
    SchedulePlan plan;
    plan.name = "none";
    plan.afterBackward = true;
    plan.buckets.push_back({0, slots.size(), slotBytes(slots, 0, slots.size())});
    return plan;
  };
}

}  // namespace tetrad::sched
