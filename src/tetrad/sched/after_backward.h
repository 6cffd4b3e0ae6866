// none: every bucket is exchanged after the whole backward pass, in bucket
// order (fused buckets of --bucket-size, sched/bucketing.h). No overlap.
#pragma once

#include "tetrad/core/spec.h"
#include "tetrad/sched/plan_spec.h"
#include "tetrad/sched/scheduler.h"

namespace tetrad {

SchedulerPtr makeAfterBackward(const SpecParams& params);

}  // namespace tetrad

namespace tetrad::sched {

// The plan parser of `none` (one bucket of every tensor, after the backward
// pass; no parameters), for the registry.
PlanFunction nonePlanOf(const SchedulePlanSpec& spec);

}  // namespace tetrad::sched
