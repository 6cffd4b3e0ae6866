// Predicted time per iteration of a method under an overlapping schedule
// (--sched wfbp | fusion | ddp | mgwfbp | priority): the pipeline model of
// sched/pipeline_cost.h fed with the method's workload, compute time and
// network, so the advisor and the maps can price the schedule dimension.
//
// Inputs, as tetrad train sets a schedule up (train/loop/schedule_setup.h):
//   slots     the model's layer table (sched/model_shapes.h), the context's
//             compute time C split as forward C/3 and backward 2C/3 over
//             the layers by their FLOPs;
//   message   one all-reduce of b bytes through the method's algorithm on
//             the context's network (sched::allreduceCommCost: per-size
//             factors and the TCP window included);
//   plan      the schedule's own plan function on those slots and that cost.
// Time per iteration:
//   with the non-finite guard   F + max(B, D) + G: the guard reads the
//                               averaged gradients, so the loop waits for the
//                               exchange before it (iterationSeconds of
//                               pipeline_cost.h) and the next forward has
//                               nothing left to overlap;
//   without it                  the steady state with forward overlap
//                               (overlappedSeconds).
// Covered: bsp on allreduce:ALGO without compression, a model with a layer
// table (mlp, cnn, resnet20); anything else is Unsupported, named.
//
// Pure function; thread-safe.
#pragma once

#include <string>

#include "tetrad/model/method_cost.h"

namespace tetrad::model {

// `sched` is a schedule spec (sched/plan_spec.h); "none" gives
// predictMethod(). Throws InvalidArgument on a bad spec, Unsupported where
// the model does not cover the method (see above).
Prediction predictScheduled(const Method& method, const std::string& sched,
                            const ModelContext& context);

}  // namespace tetrad::model
