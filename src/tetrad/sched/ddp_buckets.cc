// DDP's bucket assignment (ddp_buckets.h): close a bucket once it reaches
// its limit (FIRST for the first, CAP after).
//
// α–β cost on the channel (ring all-reduce, k buckets of B_j bytes):
// Σ_j [2(p−1)·α + 2(p−1)/p·B_j·β].
#include "tetrad/sched/ddp_buckets.h"

#include "tetrad/core/error.h"

namespace tetrad::sched {

SchedulePlan ddpPlan(std::span<const TensorSlot> slots, uint64_t capBytes,
                     uint64_t firstBucketBytes) {
  TETRAD_CHECK(capBytes > 0, InvalidArgument, "ddp: bucket size must be > 0 bytes, got {}",
               capBytes);
  TETRAD_CHECK(firstBucketBytes > 0, InvalidArgument,
               "ddp: first bucket size must be > 0 bytes, got {}", firstBucketBytes);
  checkSlots(slots);
  SchedulePlan plan;
  plan.name = capBytes == kDdpBucketBytes && firstBucketBytes == kDdpFirstBucketBytes
                  ? std::string("ddp")
                  : fmt::format("ddp:{}:{}", capBytes, firstBucketBytes);
  Bucket open;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (open.count == 0) open.first = i;
    ++open.count;
    open.bytes += slots[i].bytes;
    const uint64_t limit = plan.buckets.empty() ? firstBucketBytes : capBytes;
    if (open.bytes >= limit) {
      plan.buckets.push_back(open);
      open = Bucket{};
    }
  }
  if (open.count > 0) plan.buckets.push_back(open);
  return plan;
}

PlanFunction ddpPlanOf(const SchedulePlanSpec& spec) {
  const BucketCaps caps = bucketCapsOf(spec);
  return [caps](std::span<const TensorSlot> slots, const CommCost&) {
    return ddpPlan(slots, caps.cap, caps.first);
  };
}

}  // namespace tetrad::sched
