// DDP's bucketing: ready tensors packed into buckets the way PyTorch DDP's
// Reducer assigns them (compute_bucket_assignment_by_size, torch 1.13), so a
// tetrad run and a DDP run of the same model send the same buckets.
//
// Rule (ddpPlan): walk the slots in ready order; each slot joins the open
// bucket; the bucket is closed as soon as its bytes *reach* its limit, the
// first bucket's limit being FIRST (1 MiB) and every other one's CAP
// (25 MiB). A bucket therefore overshoots its limit by at most its last
// tensor. fusion.h's rule differs in exactly that: it closes a bucket
// *before* a tensor that would overflow it. On the cnn the difference is
// the whole overlap: DDP's first bucket takes fc1.weight (6.4 MB, ready
// early in the backward pass) and sends it while the convolutions'
// backward runs; fusion:25MiB:1MiB leaves it for the second bucket, ready
// only at the end of the pass. (Checked against
// torch._C._distributed_c10d._compute_bucket_assignment_by_size on the
// cnn: {fc2.bias, fc2.weight, fc1.bias, fc1.weight}, {conv2.bias, ...,
// conv1.weight}.) DDP rebuilds its buckets after the first iteration in
// the order gradients actually became ready; tetrad's ready order is the
// autograd order from the start, so the first iteration already has the
// rebuilt buckets.
//
// Cost (α–β, ring all-reduce on p ranks, k buckets of B_j bytes): the
// channel carries Σ_j [2(p−1)·α + 2(p−1)/p·B_j·β]; bucket j starts once its
// last tensor is ready and bucket j−1 is done.
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/fusion.h"
#include "tetrad/sched/plan_spec.h"

namespace tetrad::sched {

// Throws InvalidArgument when capBytes or firstBucketBytes is 0, or on bad
// slots (checkSlots).
SchedulePlan ddpPlan(std::span<const TensorSlot> slots, uint64_t capBytes = kDdpBucketBytes,
                     uint64_t firstBucketBytes = kDdpFirstBucketBytes);

// The plan parser of `ddp[:CAP[:FIRST]]`, for the registry.
PlanFunction ddpPlanOf(const SchedulePlanSpec& spec);

}  // namespace tetrad::sched
