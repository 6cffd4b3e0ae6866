// WFBP (wait-free backpropagation): every tensor's gradient leaves as soon as
// autograd produces it, one message per tensor, in ready order.
//
// Cost (α–β, ring all-reduce, L tensors of b_i bytes on p ranks): the
// channel carries Σ_i [2(p−1)·α + 2(p−1)/p·b_i·β], i.e. L start-up latencies;
// each message starts at max(its tensor ready, previous message done), so
// communication hides behind the rest of the backward pass when the start-up
// latencies are small against the layers' backward times.
//
// Pure function; thread-safe.
#pragma once

#include <span>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/plan_spec.h"

namespace tetrad::sched {

// One bucket per slot, in ready order. Throws InvalidArgument on bad slots
// (checkSlots).
SchedulePlan wfbpPlan(std::span<const TensorSlot> slots);
// The plan parser of `wfbp` (no parameters), for the registry.
PlanFunction wfbpPlanOf(const SchedulePlanSpec& spec);

}  // namespace tetrad::sched
