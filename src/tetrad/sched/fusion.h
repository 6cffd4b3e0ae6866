// Tensor fusion: ready tensors are packed into buckets of at most a byte cap,
// in ready order, the way PyTorch DDP and Horovod fuse gradients.
//
// Rule (fusionPlan): walk the slots in ready order; a slot joins the open
// bucket if the bucket's bytes plus the slot's stay within the cap, otherwise
// the open bucket is closed and the slot opens a new one. A slot larger than
// the cap is a bucket of its own. The *first* bucket (the one that becomes
// ready first) has the smaller cap min(capBytes, firstBucketBytes), 1 MiB by
// default as in PyTorch DDP, so that communication starts early in the
// backward pass. Unlike DDP, which closes a bucket once it reaches the cap
// (so its buckets overshoot by up to one tensor), a bucket here never
// exceeds its cap except for a single oversized tensor.
//
// Cost (α–β, ring all-reduce on p ranks, k buckets of B_j bytes): the
// channel carries Σ_j [2(p−1)·α + 2(p−1)/p·B_j·β]; bucket j starts once its
// last tensor is ready and bucket j−1 is done. Larger caps save start-up
// latencies (k falls) but delay the first message and the overlap.
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/plan_spec.h"

namespace tetrad::sched {

inline constexpr uint64_t kDdpFirstBucketBytes = uint64_t{1} << 20;  // 1 MiB
inline constexpr uint64_t kDdpBucketBytes = uint64_t{25} << 20;      // 25 MiB

// Throws InvalidArgument when capBytes or firstBucketBytes is 0, or on bad
// slots (checkSlots).
SchedulePlan fusionPlan(std::span<const TensorSlot> slots, uint64_t capBytes,
                        uint64_t firstBucketBytes = kDdpFirstBucketBytes);

// The [:BYTES[:FIRST]] parameters fusion and ddp share (defaults DDP's
// 25 MiB and 1 MiB); refused with the spec's one-line rule.
struct BucketCaps {
  uint64_t cap = kDdpBucketBytes;
  uint64_t first = kDdpFirstBucketBytes;
};
BucketCaps bucketCapsOf(const SchedulePlanSpec& spec);

// The plan parser of `fusion[:BYTES[:FIRST]]`, for the registry.
PlanFunction fusionPlanOf(const SchedulePlanSpec& spec);

}  // namespace tetrad::sched
