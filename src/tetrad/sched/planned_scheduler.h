// PlannedScheduler: the run-time face of the overlapping policies — wfbp,
// fusion[:BYTES[:FIRST]], mgwfbp[:greedy|optimal] and priority[:PART]. Their
// plans are pure functions of the ready-order slots (sched/plan_spec.h,
// wfbp.h, fusion.h, mgwfbp.h, priority.h); this adapter turns a model's
// parameters into those slots and the plan back into ranges of the flat
// buffers, in send order:
//   - whole-tensor plans: one range per bucket (consecutive tensors in ready
//     order are consecutive, reversed, in parameter order, so a bucket is a
//     contiguous range), in plan order;
//   - priority: one range per chunk, in the order prioritySendOrder() gives
//     for the planned backward times and message cost (front stage first
//     among ready chunks). The order is decided once, from the cost model,
//     so that every rank sends the same chunk sequence without a
//     negotiation round (Horovod negotiates each cycle through a
//     coordinator; a fixed order needs none). A chunk waits for its tensor.
//
// Thread-safety: immutable after construction.
#pragma once

#include <string_view>

#include "tetrad/sched/plan_spec.h"
#include "tetrad/sched/scheduler.h"

namespace tetrad {

// The ready-order slots of a model (reverse parameter order): bytes, the
// backward seconds before each is ready, the stage as the layer.
std::vector<sched::TensorSlot> readyOrderSlots(const ScheduleInputs& inputs);

// Throws InvalidArgument on a bad spec (plan_spec.h's messages).
SchedulerPtr makePlannedScheduler(std::string_view spec);

}  // namespace tetrad
