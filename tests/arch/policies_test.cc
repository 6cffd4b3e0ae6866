// Sync policies, schedulers and the parameter server's partition plan: pure
// functions and registries.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "tetrad/arch/ps/partition_plan.h"
#include "tetrad/arch/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/model_anchor.h"
#include "tetrad/sync/registry.h"

namespace tetrad {
namespace {

template <typename Fn>
std::string errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no InvalidArgument)";
}

TEST(SyncPolicies, ParseAndSchedule) {
  SyncPolicyPtr bsp = makeSyncPolicy("bsp");
  EXPECT_EQ(bsp->mode(), SyncMode::kCollective);
  EXPECT_TRUE(bsp->at(0).reduceGradients);
  EXPECT_FALSE(bsp->at(7).averageModels);

  SyncPolicyPtr local = makeSyncPolicy("local:4");
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_FALSE(local->at(i).reduceGradients) << i;
    EXPECT_EQ(local->at(i).averageModels, (i + 1) % 4 == 0) << i;
  }
  SyncPolicyPtr ssp = makeSyncPolicy("ssp:3");
  EXPECT_EQ(ssp->mode(), SyncMode::kPushPull);
  EXPECT_EQ(ssp->stalenessBound(), 3);
  EXPECT_EQ(makeSyncPolicy("asp")->stalenessBound(), kUnboundedStaleness);
  EXPECT_EQ(makeSyncPolicy("ssp:0")->spec(), "ssp:0");
}

TEST(SyncPolicies, PostLocalSwitchesExactlyAtT) {
  SyncPolicyPtr policy = makeSyncPolicy("post-local:5:3");
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(policy->at(i).reduceGradients) << i;
    EXPECT_FALSE(policy->at(i).averageModels) << i;
  }
  // Local from iteration 5: averages after iterations 7, 10, 13.
  for (int64_t i = 5; i < 14; ++i) {
    EXPECT_FALSE(policy->at(i).reduceGradients) << i;
    EXPECT_EQ(policy->at(i).averageModels, i == 7 || i == 10 || i == 13) << i;
  }
  // In epochs: 2 epochs of 50 steps.
  SyncPolicyPtr epochs = makeSyncPolicy("post-local:2ep:4", {50});
  EXPECT_TRUE(epochs->at(99).reduceGradients);
  EXPECT_FALSE(epochs->at(100).reduceGradients);
  EXPECT_TRUE(epochs->at(103).averageModels);
}

TEST(SyncPolicies, BadSpecsNameTheRule) {
  EXPECT_NE(errorOf([] { makeSyncPolicy("ssp:-1"); }).find("staleness bound S"), std::string::npos);
  EXPECT_NE(errorOf([] { makeSyncPolicy("local:0"); }).find("period H"), std::string::npos);
  EXPECT_NE(errorOf([] { makeSyncPolicy("post-local:x:4"); }).find("switch point"),
            std::string::npos);
  EXPECT_NE(errorOf([] { makeSyncPolicy("post-local:4"); }).find("takes 2"), std::string::npos);
  EXPECT_NE(errorOf([] { makeSyncPolicy("asp:2"); }).find("'asp:2'"), std::string::npos);
  EXPECT_NE(errorOf([] { makeSyncPolicy("hogwild"); }).find("known: bsp, ssp:2, asp"),
            std::string::npos);
}

TEST(Architectures, ShapesAndRules) {
  EXPECT_EQ(describeArch("allreduce").canonical, "allreduce:auto");
  EXPECT_EQ(describeArch("allreduce").allreduce, AllreduceAlgorithm::kAuto);
  EXPECT_EQ(describeArch("allreduce:rd").canonical, "allreduce:rd");
  ArchShape ps = describeArch("ps");
  EXPECT_EQ(ps.shards, 1);
  EXPECT_EQ(ps.serverRanks, 1);
  ArchShape two = describeArch("ps:2");
  EXPECT_EQ(two.serverRanks, 2);
  EXPECT_FALSE(two.colocated);
  ArchShape colocated = describeArch("ps:colocated");
  EXPECT_TRUE(colocated.colocated);
  EXPECT_EQ(colocated.shards, 0);  // one per worker
  EXPECT_EQ(colocated.serverRanks, 0);
  EXPECT_EQ(describeArch("ps:3:colocated").shards, 3);
  EXPECT_NE(errorOf([] { describeArch("ps:0"); }).find("shard count K"), std::string::npos);
  EXPECT_NE(errorOf([] { describeArch("ps:2:nearby"); }).find("nearby"), std::string::npos);
  EXPECT_NE(errorOf([] { describeArch("mesh"); }).find("known: allreduce:auto, ps:2"),
            std::string::npos);
  EXPECT_EQ(describeArch("gossip:torus:4x4").topology, "torus:4x4");
  EXPECT_EQ(describeArch("gossip:exp:one-peer").canonical, "gossip:exp:one-peer");
  EXPECT_NE(errorOf([] { describeArch("gossip"); }).find("name the topology"), std::string::npos);
}

TEST(Schedulers, NoneFusesInParameterOrder) {
  SchedulerPtr none = makeScheduler("none");
  ScheduleInputs inputs;
  inputs.slots = {{"a", 10, {10}}, {"b", 20, {4, 5}}, {"c", 5, {5}}};
  inputs.slotStage = {0, 1, 1};
  inputs.bucketBytes = 120;  // 30 floats
  auto buckets = none->plan(inputs);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets[0].count, 30u);
  EXPECT_EQ(buckets[1].offset, 30u);
  EXPECT_EQ(buckets[1].shape, (std::vector<int64_t>{5}));
  // A fused bucket lists its tensors' shapes (batched PowerSGD's matrices).
  EXPECT_TRUE(buckets[0].shape.empty());
  EXPECT_EQ(buckets[0].tensorShapes, (std::vector<std::vector<int64_t>>{{10}, {4, 5}}));
  EXPECT_EQ(buckets[1].tensorShapes, (std::vector<std::vector<int64_t>>{{5}}));
  EXPECT_FALSE(none->overlapsBackward());
  EXPECT_NE(errorOf([] { makeScheduler("eager"); }).find("known: none, wfbp"), std::string::npos);
}

// The overlapping policies send ranges of the flat buffer in ready order
// (reverse parameter order), covering every element once.
TEST(Schedulers, OverlappingPlansCoverTheBufferInReadyOrder) {
  ScheduleInputs inputs;
  inputs.slots = {
      {"a.weight", 10, {2, 5}}, {"a.bias", 2, {2}}, {"b.weight", 20, {4, 5}}, {"b.bias", 4, {4}}};
  inputs.slotStage = {0, 0, 1, 1};
  inputs.backwardSeconds = {0, 1e-3, 0, 2e-3};
  inputs.cost = sched::ringAllreduceCommCost(4, 1e-4, 1e-9);
  for (const char* spec : {"wfbp", "fusion:64:16", "mgwfbp", "mgwfbp:optimal", "priority:16"}) {
    SchedulerPtr scheduler = makeScheduler(spec);
    EXPECT_TRUE(scheduler->overlapsBackward()) << spec;
    const auto units = scheduler->plan(inputs);
    std::vector<int> covered(36, 0);
    for (const BucketRange& unit : units) {
      for (size_t i = unit.offset; i < unit.offset + unit.count; ++i) ++covered.at(i);
    }
    for (int c : covered) EXPECT_EQ(c, 1) << spec;
    // The last parameter's gradient is ready first and leaves first.
    EXPECT_EQ(units.front().offset + units.front().count, 36u) << spec;
  }
  EXPECT_EQ(makeScheduler("wfbp")->plan(inputs).size(), 4u);
  EXPECT_EQ(makeScheduler("wfbp")->plan(inputs)[1].shape, (std::vector<int64_t>{4, 5}));
  // Fused units list their tensors (parameter order); chunks list none.
  const std::vector<BucketRange> fused = makeScheduler("fusion:1MiB")->plan(inputs);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0].tensorShapes, (std::vector<std::vector<int64_t>>{{2, 5}, {2}, {4, 5}, {4}}));
  for (const BucketRange& chunk : makeScheduler("priority:16")->plan(inputs)) {
    EXPECT_EQ(chunk.tensorShapes.size(), chunk.shape.empty() ? 0u : 1u) << chunk.names;
  }
  // 16-byte chunks: a.weight 3, a.bias 1, b.weight 5, b.bias 1.
  EXPECT_EQ(makeScheduler("priority:16")->plan(inputs).size(), 10u);
  EXPECT_TRUE(makeScheduler("priority")->gatesForward());
  EXPECT_FALSE(makeScheduler("fusion")->gatesForward());
  EXPECT_NE(errorOf([] { makeScheduler("fusion:0"); }).find("bucket size must be > 0"),
            std::string::npos);
  EXPECT_NE(errorOf([] { makeScheduler("priority:-1"); }).find("priority:-1"), std::string::npos);
  EXPECT_NE(errorOf([] {
              makeScheduler("mgwfbp")->plan({{{"a", 1, {1}}}, {0}, {}, 0, {}});
            }).find("needs the cost"),
            std::string::npos);
}

TEST(PartitionPlan, EveryElementOnceAndShardsBalanced) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ParameterSlot> slots;
    const int count = 1 + int(rng() % 12);
    for (int t = 0; t < count; ++t) slots.push_back({"t", 1 + rng() % 5000, {}});
    // Buckets of 1 to 3 whole tensors.
    std::vector<BucketRange> buckets;
    size_t offset = 0;
    for (size_t t = 0; t < slots.size();) {
      const size_t take = std::min<size_t>(1 + rng() % 3, slots.size() - t);
      BucketRange bucket{offset, 0, {}, ""};
      for (size_t i = 0; i < take; ++i) bucket.count += slots[t + i].count;
      offset += bucket.count;
      buckets.push_back(bucket);
      t += take;
    }
    const uint64_t partitionBytes = 4 * (1 + rng() % 1500);
    size_t partitions = 0;
    for (const ParameterSlot& s : slots) {
      partitions += (s.count * 4 + partitionBytes - 1) / partitionBytes;
    }
    const int shards = 1 + int(rng() % std::min<size_t>(partitions, 9));
    PartitionPlan plan = planPartitions(slots, buckets, partitionBytes, shards);
    std::vector<int> covered(offset, 0);
    size_t largest = 0;
    for (const Partition& p : plan.partitions) {
      EXPECT_LE(p.count * 4, partitionBytes);
      EXPECT_GE(p.offset, buckets[p.bucket].offset);
      EXPECT_LE(p.offset + p.count, buckets[p.bucket].offset + buckets[p.bucket].count);
      for (size_t i = p.offset; i < p.offset + p.count; ++i) ++covered[i];
      largest = std::max(largest, p.count * 4);
    }
    for (size_t i = 0; i < offset; ++i) ASSERT_EQ(covered[i], 1) << "element " << i;
    ASSERT_EQ(plan.shardBytes.size(), size_t(shards));
    const auto [low, high] = std::minmax_element(plan.shardBytes.begin(), plan.shardBytes.end());
    EXPECT_LE(*high - *low, largest) << "trial " << trial;
    size_t listed = 0;
    for (const auto& ids : plan.perShard) listed += ids.size();
    EXPECT_EQ(listed, plan.partitions.size());
  }
}

TEST(PartitionPlan, MoreShardsThanPartitionsIsAnError) {
  std::vector<ParameterSlot> slots = {{"a", 60, {}}, {"b", 40, {}}, {"c", 100, {}}};
  std::vector<BucketRange> buckets = {{0, 100, {}, ""}, {100, 100, {}, ""}};
  EXPECT_NE(errorOf([&] {
              planPartitions(slots, buckets, 4 << 20, 4);
            }).find("4 shards but the model has only 3 partitions"),
            std::string::npos);
  // A tensor per partition, large tensors split: 60 -> 3 x 20... of at most 25 floats.
  PartitionPlan plan = planPartitions(slots, buckets, 100, 3);
  EXPECT_EQ(plan.partitions.size(), 3u + 2u + 4u);
  EXPECT_EQ(plan.perBucket[0].size(), 5u);
}

}  // namespace
}  // namespace tetrad

namespace tetrad {
namespace {

// Local SGD's anchor: the change since the last average, the average added
// back, and its checkpoint bytes (damaged ones refused).
TEST(ModelAnchor, SendsTheChangeAndTakesTheAverageBack) {
  ModelAnchor anchor;
  EXPECT_FALSE(anchor.holds());
  std::vector<float> params = {1, 2, 3};
  anchor.reset(params);
  params = {2, 4, 6};
  std::vector<float> change;
  anchor.changeOf(params, change);
  EXPECT_EQ(change, (std::vector<float>{1, 2, 3}));
  const std::vector<float> averaged = {0.5f, 1, 1.5f};
  anchor.applyAverage(params, averaged);
  EXPECT_EQ(params, (std::vector<float>{1.5f, 3, 4.5f}));
  ByteBuffer bytes;
  ByteWriter out(bytes);
  anchor.save(out);
  ModelAnchor restored;
  ByteReader in(bytes);
  restored.load(in);
  std::vector<float> moved = {2.5f, 3, 4.5f};
  restored.changeOf(moved, change);
  EXPECT_EQ(change, (std::vector<float>{1, 0, 0}));
  std::vector<float> shorter = {1, 2};
  EXPECT_THROW(restored.changeOf(shorter, change), InvalidArgument);
  ByteBuffer damaged;
  ByteWriter writer(damaged);
  writer.put<uint64_t>(uint64_t(1) << 62);
  ByteReader reader(damaged);
  EXPECT_THROW(ModelAnchor().load(reader), ProtocolError);
}

}  // namespace
}  // namespace tetrad
