// MG-WFBP (merged-gradient wait-free backpropagation; Shi, Chu and Li,
// INFOCOM 2019): merge the gradients of consecutive layers into one message
// when the start-up latency saved exceeds the overlap lost.
//
// Model: slots become ready at r_i (running sum of backward times, ready
// order); one channel sends buckets in ready order; a bucket of slots [a, b]
// starts at s = max(r_b, end of the previous bucket) and ends at
// s + c(bytes), c being the CommCost. The backward pass and the exchange are
// over when the last bucket ends.
//
//   mgwfbpGreedyPlan   the paper's rule, as in its authors' code: walk the
//                      slots in ready order; the next slot joins the open
//                      bucket iff it becomes ready while the open bucket would
//                      still be on the wire (r_next < s + c(open)) and less
//                      than the start-up latency c(0) after the open bucket
//                      would start (r_next − s < c(0)): waiting for it costs
//                      less than the start-up a separate message would pay.
//   mgwfbpOptimalPlan  the exact optimum over all 2^(L−1) contiguous
//                      partitions, by dynamic programming: E[j], the earliest
//                      end of a plan of slots [0, j), is
//                      min_i max(r_{j−1}, E[i]) + c(bytes of [i, j)); the end
//                      is monotone in E[i], so the recursion is exact. O(L²)
//                      cost evaluations.
//
// Cost (α–β, ring all-reduce on p ranks, k buckets of B_j bytes): the
// channel carries Σ_j [2(p−1)·α + 2(p−1)/p·B_j·β]; each merge saves one
// 2(p−1)·α and may delay the merged message by up to that much.
//
// Pure functions; thread-safe.
#pragma once

#include <span>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/comm_cost.h"
#include "tetrad/sched/plan_spec.h"

namespace tetrad::sched {

// Both throw InvalidArgument on bad slots (checkSlots).
SchedulePlan mgwfbpGreedyPlan(std::span<const TensorSlot> slots, const CommCost& cost);
SchedulePlan mgwfbpOptimalPlan(std::span<const TensorSlot> slots, const CommCost& cost);
// The plan parser of `mgwfbp[:greedy|optimal]`, for the registry.
PlanFunction mgwfbpPlanOf(const SchedulePlanSpec& spec);

// When the last of `buckets` is done on the channel, in seconds after the
// backward pass starts (the quantity mgwfbpOptimalPlan minimises).
double bucketsFinishSeconds(std::span<const TensorSlot> slots, std::span<const Bucket> buckets,
                            const CommCost& cost);

}  // namespace tetrad::sched
