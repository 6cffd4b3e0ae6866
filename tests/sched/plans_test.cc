// The plans as pure functions: coverage and ready order for every plan,
// fusion's byte caps and first bucket, priority's partition and queue.
#include <gtest/gtest.h>

#include <random>

#include "sched_test_util.h"
#include "tetrad/core/error.h"
#include "tetrad/sched/ddp_buckets.h"
#include "tetrad/sched/fusion.h"
#include "tetrad/sched/model_shapes.h"
#include "tetrad/sched/mgwfbp.h"
#include "tetrad/sched/plan_spec.h"
#include "tetrad/sched/priority.h"
#include "tetrad/sched/wfbp.h"

namespace tetrad::sched {
namespace {

using testing::expectCoversInReadyOrder;
using testing::randomSlots;

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(Plans, EveryPlanCoversEverySlotOnceInReadyOrder) {
  std::mt19937_64 rng(7);
  const std::vector<std::string> specs = {
      "none",   "wfbp",           "fusion",   "fusion:64KB",   "fusion:1MB:4KB", "ddp",
      "ddp:64KB:4KB", "mgwfbp", "mgwfbp:optimal", "priority", "priority:4096", "priority:100KB"};
  for (int instance = 0; instance < 100; ++instance) {
    std::uniform_int_distribution<size_t> count(1, 40);
    const std::vector<TensorSlot> slots = randomSlots(rng, count(rng), 3 * kMiB, 2e-3);
    const CommCost cost = testing::randomRingCost(rng);
    for (const std::string& text : specs) {
      const SchedulePlan plan = parseSchedulePlanSpec(text).plan(slots, cost);
      EXPECT_EQ(plan.name, text);
      expectCoversInReadyOrder(slots, plan);
      EXPECT_NO_THROW(checkPlan(slots, plan)) << text;
    }
  }
}

TEST(Plans, CheckPlanRefusesGapsOverlapsAndWrongBytes) {
  const std::vector<TensorSlot> slots = {{8, 0, 2}, {4, 0, 1}, {12, 0, 0}};
  SchedulePlan plan = wfbpPlan(slots);
  EXPECT_NO_THROW(checkPlan(slots, plan));
  SchedulePlan gap = plan;
  gap.buckets.erase(gap.buckets.begin() + 1);
  EXPECT_THROW(checkPlan(slots, gap), InvalidArgument);
  SchedulePlan overlap = plan;
  overlap.buckets[1] = {0, 2, 12};
  EXPECT_THROW(checkPlan(slots, overlap), InvalidArgument);
  SchedulePlan bytes = plan;
  bytes.buckets[2].bytes = 8;
  EXPECT_THROW(checkPlan(slots, bytes), InvalidArgument);
  SchedulePlan chunks = partitionPlan(slots, 4);
  EXPECT_NO_THROW(checkPlan(slots, chunks));
  std::swap(chunks.chunks[0], chunks.chunks[1]);  // out of ready order
  EXPECT_THROW(checkPlan(slots, chunks), InvalidArgument);
  SchedulePlan missing = partitionPlan(slots, 4);
  missing.chunks.pop_back();
  EXPECT_THROW(checkPlan(slots, missing), InvalidArgument);
  EXPECT_THROW(checkSlots(std::vector<TensorSlot>{{6, 0, 0}}), InvalidArgument);
  EXPECT_THROW(checkSlots(std::vector<TensorSlot>{{4, -1, 0}}), InvalidArgument);
  EXPECT_THROW(checkSlots(std::vector<TensorSlot>{}), InvalidArgument);
}

TEST(Plans, BucketOfSlotMapsEverySlotToItsBucket) {
  std::vector<TensorSlot> slots;
  for (uint64_t kib : {300, 500, 400, 2000, 100}) slots.push_back({kib * 1024, 0, 0});
  const SchedulePlan plan = fusionPlan(slots, kMiB, 512 * 1024);  // {0} {1,2} {3} {4}
  EXPECT_EQ(bucketOfSlot(slots, plan), (std::vector<size_t>{0, 1, 1, 2, 3}));
  EXPECT_THROW(bucketOfSlot(slots, partitionPlan(slots, kMiB)), InvalidArgument);
}

TEST(Wfbp, OneBucketPerTensorInReadyOrder) {
  const std::vector<TensorSlot> slots = {{40, 1, 3}, {4, 0, 3}, {400, 2, 2}};
  const SchedulePlan plan = wfbpPlan(slots);
  ASSERT_EQ(plan.buckets.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan.buckets[i].first, i);
    EXPECT_EQ(plan.buckets[i].count, 1u);
    EXPECT_EQ(plan.buckets[i].bytes, slots[i].bytes);
  }
  EXPECT_FALSE(plan.afterBackward);
}

TEST(Fusion, HandComputedBuckets) {
  // Ready order sizes (KiB): 300 500 400 2000 100 100 600; cap 1 MiB, first 512 KiB.
  std::vector<TensorSlot> slots;
  for (uint64_t kib : {300, 500, 400, 2000, 100, 100, 600}) slots.push_back({kib * 1024, 0, 0});
  const SchedulePlan plan = fusionPlan(slots, kMiB, 512 * 1024);
  // First bucket capped at 512 KiB: {300}; then {500, 400}; {2000} alone (over
  // the cap); {100, 100, 600}.
  ASSERT_EQ(plan.buckets.size(), 4u);
  EXPECT_EQ(plan.buckets[0].count, 1u);
  EXPECT_EQ(plan.buckets[1].first, 1u);
  EXPECT_EQ(plan.buckets[1].count, 2u);
  EXPECT_EQ(plan.buckets[2].first, 3u);
  EXPECT_EQ(plan.buckets[2].count, 1u);
  EXPECT_EQ(plan.buckets[3].count, 3u);
  EXPECT_EQ(plan.buckets[3].bytes, 800u * 1024);
}

TEST(Fusion, RespectsTheCapAndTheFirstBucketRule) {
  std::mt19937_64 rng(11);
  for (int instance = 0; instance < 200; ++instance) {
    std::uniform_int_distribution<size_t> count(1, 60);
    const std::vector<TensorSlot> slots = randomSlots(rng, count(rng), 4 * kMiB, 1e-3);
    std::uniform_int_distribution<uint64_t> capDist(4, 8 * kMiB);
    const uint64_t cap = capDist(rng);
    const uint64_t first = instance % 2 ? kDdpFirstBucketBytes : capDist(rng);
    const SchedulePlan plan = fusionPlan(slots, cap, first);
    expectCoversInReadyOrder(slots, plan);
    for (size_t b = 0; b < plan.buckets.size(); ++b) {
      const Bucket& bucket = plan.buckets[b];
      const uint64_t limit = b == 0 ? std::min(cap, first) : cap;
      // Within its cap, unless it is one oversized tensor.
      EXPECT_TRUE(bucket.bytes <= limit || bucket.count == 1)
          << "bucket " << b << " of " << bucket.bytes << " bytes, cap " << limit;
      // Closed only because the next tensor would not fit.
      if (b + 1 < plan.buckets.size()) {
        EXPECT_GT(bucket.bytes + slots[bucket.first + bucket.count].bytes, limit)
            << "bucket " << b << " closed early";
      }
    }
  }
}

TEST(Fusion, DefaultsAreDdpsAndZeroIsRefused) {
  const std::vector<TensorSlot> slots(80, TensorSlot{kMiB / 2, 1e-4, 0});
  const SchedulePlan plan =
      parseSchedulePlanSpec("fusion").plan(slots, ringAllreduceCommCost(8, 25e-6, 8e-10));
  ASSERT_EQ(plan.buckets.size(), 3u);
  EXPECT_EQ(plan.buckets[0].bytes, kMiB);       // two 512 KiB tensors: the 1 MiB first bucket
  EXPECT_EQ(plan.buckets[1].bytes, 25 * kMiB);  // fifty tensors fill 25 MiB exactly
  EXPECT_EQ(plan.buckets[2].bytes, 14 * kMiB);
  EXPECT_THROW(fusionPlan(slots, 0), InvalidArgument);
  EXPECT_THROW(fusionPlan(slots, kMiB, 0), InvalidArgument);
}

// DDP's rule: a bucket closes once it reaches its limit, so every bucket
// but the last has reached it and was below it before its last slot.
TEST(DdpBuckets, CloseOnceTheyReachTheirLimit) {
  std::mt19937_64 rng(11);
  for (int instance = 0; instance < 100; ++instance) {
    std::uniform_int_distribution<size_t> count(1, 40);
    const std::vector<TensorSlot> slots = randomSlots(rng, count(rng), 3 * kMiB, 2e-3);
    const SchedulePlan plan = ddpPlan(slots, 2 * kMiB, kMiB / 4);
    for (size_t b = 0; b + 1 < plan.buckets.size(); ++b) {
      const Bucket& bucket = plan.buckets[b];
      const uint64_t limit = b == 0 ? kMiB / 4 : 2 * kMiB;
      EXPECT_GE(bucket.bytes, limit);
      EXPECT_LT(bucket.bytes - slots[bucket.first + bucket.count - 1].bytes, limit);
    }
    EXPECT_NO_THROW(checkPlan(slots, plan));
  }
  EXPECT_THROW(ddpPlan({}, 0, 1), InvalidArgument);
  EXPECT_THROW(parseSchedulePlanSpec("ddp:0"), InvalidArgument);
}

// On the cnn, DDP's first bucket takes fc1.weight with the layers after it
// (torch 1.13's _compute_bucket_assignment_by_size gives {fc2.bias,
// fc2.weight, fc1.bias, fc1.weight}, {conv2.bias, conv2.weight, conv1.bias,
// conv1.weight}); fusion's rule leaves fc1.weight for the second bucket.
TEST(DdpBuckets, CnnBucketsAreTorchs) {
  const Workload cnn = makeWorkload(modelLayers("cnn"), {});
  ASSERT_EQ(cnn.slots.size(), 8u);
  const SchedulePlan ddp = ddpPlan(cnn.slots);
  ASSERT_EQ(ddp.buckets.size(), 2u);
  EXPECT_EQ(ddp.buckets[0].count, 4u);
  EXPECT_EQ(ddp.buckets[0].bytes, uint64_t{40 + 20480 + 2048 + 6422528});
  EXPECT_EQ(ddp.buckets[1].count, 4u);
  const SchedulePlan fusion = fusionPlan(cnn.slots, kDdpBucketBytes, kDdpFirstBucketBytes);
  ASSERT_EQ(fusion.buckets.size(), 2u);
  EXPECT_EQ(fusion.buckets[0].count, 3u);
  std::mt19937_64 rng(1);
  const SchedulePlan parsed = parseSchedulePlanSpec("ddp").plan(cnn.slots, testing::randomRingCost(rng));
  EXPECT_EQ(parsed.buckets.size(), 2u);
}

TEST(Priority, PartitionCutsTensorsIntoWholeFloatChunks) {
  const std::vector<TensorSlot> slots = {{4000, 1, 2}, {2000, 2, 1}, {1000, 0.5, 0}};
  const SchedulePlan plan = partitionPlan(slots, 1001);  // rounded down to 1000
  ASSERT_EQ(plan.chunks.size(), 7u);
  EXPECT_EQ(plan.order, SendOrder::kFrontLayerFirst);
  for (const Chunk& c : plan.chunks) EXPECT_EQ(c.bytes, 1000u);
  EXPECT_EQ(plan.chunks[3].slot, 0u);
  EXPECT_EQ(plan.chunks[3].offset, 3000u);
  EXPECT_EQ(plan.chunks[6].layer, 0);
  const SchedulePlan uneven = partitionPlan(std::vector<TensorSlot>{{12, 0, 0}}, 8);
  ASSERT_EQ(uneven.chunks.size(), 2u);
  EXPECT_EQ(uneven.chunks[1].bytes, 4u);
  EXPECT_THROW(partitionPlan(slots, 3), InvalidArgument);
  EXPECT_THROW(partitionPlan(slots, 0), InvalidArgument);
}

TEST(Priority, QueuePopsTheFrontLayerFirstThenReadyOrder) {
  ChunkQueue queue;
  queue.push(0, 5);
  queue.push(1, 5);
  queue.push(2, 3);
  queue.push(3, 7);
  queue.push(4, 3);
  std::vector<size_t> order;
  while (!queue.empty()) order.push_back(queue.pop());
  EXPECT_EQ(order, (std::vector<size_t>{2, 4, 0, 1, 3}));
  EXPECT_THROW(queue.pop(), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::sched
