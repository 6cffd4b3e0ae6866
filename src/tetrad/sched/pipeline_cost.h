// Pipeline cost model: the predicted time of one training iteration under a
// schedule plan, from the slots' compute times and a CommCost.
//
// Model. The forward pass takes F = Σ_l f_l (layerForwardSeconds, indexed by
// the slots' forward-layer index; layers without parameters may appear with
// their time). The backward pass starts at 0 and slot i becomes ready at r_i
// (the running sum of backwardSeconds); it ends at B = r_{L−1}. One
// communication channel carries the plan's messages one at a time:
//   - whole-tensor plans: buckets in plan order, bucket j starting at
//     max(r of its last slot, end of bucket j−1), or max(B, ...) for "none"
//     (afterBackward), and lasting cost.seconds(bytes);
//   - partitioned plans: chunks in the order of prioritySendOrder().
// Layer l's update is in at D_l, the end of the last message holding a byte
// of one of its slots (0 for a layer without slots).
//
// Two iteration times are reported:
//   iterationSeconds   the next forward starts when every update is in:
//                      F + max(B, max_l D_l).
//   overlappedSeconds  the next iteration's forward of layer l starts when
//                      layer l−1's forward is done, the backward is done and
//                      layer l's update is in (the overlap ByteScheduler and
//                      P3 exploit). Modelled as a two-iteration schedule: when
//                      iteration k+1's backward starts, every update of
//                      iteration k is in (its forward needed them all) and
//                      the channel is idle, so every iteration repeats the
//                      same schedule and the steady-state period is the time
//                      from one backward start to the next,
//                      t_{−1} = B, t_l = max(t_{l−1}, D_l) + f_l, T = t_{L−1}.
//                      overlappedSeconds <= iterationSeconds always.
// Optimizer, encode/decode and compute–communication interference are not
// modelled; the values are predictions of the α–β model, not measurements.
//
// Pure functions; thread-safe.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/comm_cost.h"

namespace tetrad::sched {

struct IterationPrediction {
  std::string plan;                        // the plan's name
  double forwardSeconds = 0;               // F
  double backwardSeconds = 0;              // B
  double commBusySeconds = 0;              // Σ message times: the channel's busy time
  double exchangeEndSeconds = 0;           // max_l D_l, after the backward pass starts
  double iterationSeconds = 0;             // F + max(B, exchangeEndSeconds)
  double overlappedSeconds = 0;            // steady state with forward overlap (see above)
  std::vector<MessageTiming> messages;     // in send order
  std::vector<double> layerUpdateSeconds;  // D_l per forward layer
};

// The send order and times of a whole-tensor plan on one channel. Throws
// InvalidArgument unless `plan` is a valid whole-tensor plan of `slots`.
std::vector<MessageTiming> fifoSendOrder(std::span<const TensorSlot> slots,
                                         const SchedulePlan& plan, const CommCost& cost);

// Throws InvalidArgument when the plan does not cover the slots (checkPlan),
// or when layerForwardSeconds does not cover every slot's layer or holds a
// negative or non-finite time.
IterationPrediction predictIteration(std::span<const TensorSlot> slots,
                                     std::span<const double> layerForwardSeconds,
                                     const SchedulePlan& plan, const CommCost& cost);

}  // namespace tetrad::sched
