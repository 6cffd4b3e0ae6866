// Tensor fusion with a small first bucket (fusion.h).
//
// α–β cost on the channel (ring all-reduce, k buckets of B_j bytes):
// Σ_j [2(p−1)·α + 2(p−1)/p·B_j·β].
#include "tetrad/sched/fusion.h"

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/sched/plan_params.h"

namespace tetrad::sched {

SchedulePlan fusionPlan(std::span<const TensorSlot> slots, uint64_t capBytes,
                        uint64_t firstBucketBytes) {
  TETRAD_CHECK(capBytes > 0, InvalidArgument, "fusion: bucket size must be > 0 bytes, got {}",
               capBytes);
  TETRAD_CHECK(firstBucketBytes > 0, InvalidArgument,
               "fusion: first bucket size must be > 0 bytes, got {}", firstBucketBytes);
  checkSlots(slots);
  SchedulePlan plan;
  plan.name = firstBucketBytes == kDdpFirstBucketBytes
                  ? fmt::format("fusion:{}", capBytes)
                  : fmt::format("fusion:{}:{}", capBytes, firstBucketBytes);
  Bucket open;
  for (size_t i = 0; i < slots.size(); ++i) {
    const uint64_t cap = plan.buckets.empty() ? std::min(capBytes, firstBucketBytes) : capBytes;
    if (open.count > 0 && open.bytes + slots[i].bytes > cap) {
      plan.buckets.push_back(open);
      open = Bucket{i, 0, 0};
    }
    if (open.count == 0) open.first = i;
    ++open.count;
    open.bytes += slots[i].bytes;
  }
  plan.buckets.push_back(open);
  return plan;
}

BucketCaps bucketCapsOf(const SchedulePlanSpec& spec) {
  expectPlanParams(spec, 2);
  BucketCaps caps;
  caps.cap =
      planBytesParam(spec, 0, kDdpBucketBytes, 1, "bucket size must be > 0 bytes (e.g. 25MiB)");
  caps.first = planBytesParam(spec, 1, kDdpFirstBucketBytes, 1,
                              "first bucket size must be > 0 bytes (e.g. 1MiB)");
  return caps;
}

PlanFunction fusionPlanOf(const SchedulePlanSpec& spec) {
  const BucketCaps caps = bucketCapsOf(spec);
  return [caps](std::span<const TensorSlot> slots, const CommCost&) {
    return fusionPlan(slots, caps.cap, caps.first);
  };
}

}  // namespace tetrad::sched
