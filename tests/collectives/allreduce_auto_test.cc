// allreduce:auto (collectives/allreduce_auto.h): its choice per size on a
// star and a two-level cluster, and on the SimGrid engine a result
// bit-identical to the chosen algorithm's at the same simulated time.
#include "tetrad/collectives/allreduce_auto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "collective_checks.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

// sim:10Gbps,25us as the cost model sees it.
CostParams tenGigabit() {
  CostParams params;
  params.alpha = 25e-6;
  params.beta = 1.0 / 1.25e9;
  return params;
}

bool latencyBound(AllreduceAlgorithm a) {
  return a == AllreduceAlgorithm::kRecursiveDoubling || a == AllreduceAlgorithm::kTree;
}

TEST(AllreduceAuto, PicksLatencyBoundForSmallAndRingForLarge) {
  const AllreduceSelector selector(8, tenGigabit(), "test");
  EXPECT_TRUE(latencyBound(selector.choose(1024))) << toString(selector.choose(1024));  // 4 KB
  EXPECT_EQ(selector.choose(size_t(16) << 20), AllreduceAlgorithm::kRing);              // 64 MB
  // The switch point lies between them, and the choice is monotone around it.
  const size_t at = autoSwitchCount(selector);
  EXPECT_GT(at, 1024u);
  EXPECT_LT(at, size_t(16) << 20);
  EXPECT_TRUE(latencyBound(selector.choose(at)));
  EXPECT_FALSE(latencyBound(selector.choose(at + 1)));
}

TEST(AllreduceAuto, ItsCostIsTheChosenAlgorithmsAndNeverAboveTheRing) {
  const AllreduceSelector selector(8, tenGigabit(), "test");
  for (size_t count : {size_t(1), size_t(100), size_t(4096), size_t(1) << 16, size_t(1) << 22}) {
    const AllreduceAlgorithm chosen = selector.choose(count);
    const double auto_ = allreduceCost(AllreduceAlgorithm::kAuto, 8, count, tenGigabit());
    EXPECT_DOUBLE_EQ(auto_, allreduceCost(chosen, 8, count, tenGigabit()));
    EXPECT_LE(auto_, allreduceCost(AllreduceAlgorithm::kRing, 8, count, tenGigabit()));
  }
}

TEST(AllreduceAuto, TwoLevelClustersChooseBetweenRingAndHierarchical) {
  CostParams params = tenGigabit();
  params.ranksPerNode = 4;
  params.intraAlpha = 1e-6;
  params.intraBeta = 1.0 / 12.5e9;
  const AllreduceSelector selector(16, params, "test");
  for (size_t count : {size_t(16), size_t(1) << 20, size_t(1) << 24}) {
    const AllreduceAlgorithm a = selector.choose(count);
    EXPECT_TRUE(a == AllreduceAlgorithm::kRing || a == AllreduceAlgorithm::kHierarchical)
        << toString(a);
  }
  EXPECT_EQ(selector.choose(16), AllreduceAlgorithm::kHierarchical);
}

TEST(AllreduceAuto, RecordsEachSizeAndRefusesWithoutASelector) {
  const AllreduceSelector selector(8, tenGigabit(), "test");
  selector.record(1024, WirePrecision::kFloat32);
  selector.record(1024, WirePrecision::kFloat32);
  selector.record(size_t(16) << 20, WirePrecision::kFloat32);
  const std::vector<AllreduceSelection> s = selector.selections();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].count, 1024u);
  EXPECT_EQ(s[0].calls, 2u);
  EXPECT_EQ(s[1].algorithm, AllreduceAlgorithm::kRing);
  EXPECT_EQ(parseAllreduceAlgorithm("auto"), AllreduceAlgorithm::kAuto);

  std::string error;
  launch(testing::starCluster(2), [&](Transport& t) {
    std::vector<float> data(8, 1.0f);
    try {
      allreduce(t, data, {AllreduceAlgorithm::kAuto, ReduceOp::kSum, 100});
    } catch (const InvalidArgument& e) {
      if (t.rank() == 0) error = e.what();
    }
  });
  EXPECT_NE(error.find("without a selector"), std::string::npos) << error;
}

// One all-reduce of `count` floats on 8 simulated ranks: the latest finish
// time and rank 0's result.
struct Outcome {
  double seconds = 0;
  std::vector<float> result;
};

Outcome runOnce(AllreduceAlgorithm algorithm, size_t count, const AllreduceSelector* selector) {
  Outcome outcome;
  std::mutex mutex;
  launch(testing::starCluster(8), [&](Transport& t) {
    std::vector<float> data(count);
    for (size_t i = 0; i < count; ++i) data[i] = 0.1f * float(t.rank() + 1) + 1e-3f * float(i % 97);
    const double start = t.now();
    allreduce(t, data, {algorithm, ReduceOp::kAverage, 100, WirePrecision::kFloat32, selector});
    const double elapsed = t.now() - start;
    std::lock_guard<std::mutex> lock(mutex);
    outcome.seconds = std::max(outcome.seconds, elapsed);
    if (t.rank() == 0) outcome.result = data;
  });
  return outcome;
}

TEST(AllreduceAuto, EqualsTheChosenAlgorithmBitForBitAndInTime) {
  const AllreduceSelector selector(8, tenGigabit(), "test");
  for (size_t count : {size_t(1024), size_t(1) << 20}) {
    const AllreduceAlgorithm chosen = selector.choose(count);
    const Outcome viaAuto = runOnce(AllreduceAlgorithm::kAuto, count, &selector);
    const Outcome direct = runOnce(chosen, count, nullptr);
    ASSERT_EQ(viaAuto.result.size(), direct.result.size());
    EXPECT_EQ(0, std::memcmp(viaAuto.result.data(), direct.result.data(),
                             direct.result.size() * sizeof(float)))
        << count << " floats, " << toString(chosen);
    EXPECT_NEAR(viaAuto.seconds, direct.seconds, 1e-9) << count;
    // The simulator agrees with the model's pick: auto is not slower than the ring.
    const Outcome ring = runOnce(AllreduceAlgorithm::kRing, count, nullptr);
    EXPECT_LE(viaAuto.seconds, ring.seconds * (1 + 1e-9)) << count;
  }
}

}  // namespace
}  // namespace tetrad
