// none: every bucket is exchanged after the whole backward pass, in bucket
// order (fused buckets of --bucket-size, sched/bucketing.h). No overlap.
#pragma once

#include "tetrad/core/spec.h"
#include "tetrad/sched/scheduler.h"

namespace tetrad {

SchedulerPtr makeAfterBackward(const SpecParams& params);

}  // namespace tetrad
