// The batch plan (train/data/batch_plan.h): a run's own grid is the modular
// arithmetic the loop always used, and a resize that keeps the per-worker
// batch continues the epoch it happens in without repeating or skipping a
// position, then walks whole epochs of the new global batch.
#include "tetrad/train/data/batch_plan.h"

#include <gtest/gtest.h>

#include <set>

#include "tetrad/core/error.h"
#include "tetrad/train/data/partition.h"
#include "train_core_test_util.h"

namespace tetrad::train {
namespace {

using testing::patternLabels;

TEST(BatchPlan, AUniformPlanIsTheModularGrid) {
  const int64_t steps = 31, batch = 32;
  const BatchPlan plan = uniformBatchPlan(batch, steps);
  for (int64_t n = 0; n < 4 * steps + 3; ++n) {
    EXPECT_EQ(plan.at(n).epoch, n / steps) << n;
    EXPECT_EQ(plan.at(n).position, (n % steps) * batch) << n;
    EXPECT_EQ(plan.startsEpoch(n), n % steps == 0) << n;
    EXPECT_EQ(plan.gridStep(n), n);
    EXPECT_EQ(plan.epochsAt(n), double(n) / double(steps));  // exactly, as records had it
    EXPECT_EQ(plan.samplesAt(n), n * batch);
  }
  EXPECT_EQ(plan.iterationsFor(3), 3 * steps);
  EXPECT_EQ(plan.iterationsFor(0), 0);
  EXPECT_THROW(uniformBatchPlan(0, 3), InvalidArgument);
}

// 4 workers of 8 (global 32) resized at iteration 45 to 3 workers of 8
// (global 24): epoch 1 had taken positions [0, 448); the 3 workers take
// [448, 448 + 23·24) of the same permutation, each sample once, then epoch
// 2 begins at iteration 68 with 41 steps of 24.
TEST(BatchPlan, APerWorkerResizeContinuesTheEpochWithoutRepeatingASample) {
  const size_t n = 1003;
  auto l = patternLabels(n);
  const BatchPlan old = uniformBatchPlan(32, stepsPerEpoch(n, 4, 8));
  ASSERT_EQ(old.stepsPerEpoch, 31);
  const BatchPlan plan = resizedBatchPlan(old, 45, 24, n);
  EXPECT_EQ(plan.firstIteration, 45);
  EXPECT_EQ(plan.at(45).epoch, 1);
  EXPECT_EQ(plan.at(45).position, 448);
  EXPECT_EQ(plan.stepsInFirstEpoch, 23);
  EXPECT_EQ(plan.stepsPerEpoch, 41);
  EXPECT_EQ(plan.samplesAt(45), 45 * 32);
  EXPECT_EQ(plan.samplesAt(50), 45 * 32 + 5 * 24);
  EXPECT_FALSE(plan.startsEpoch(67));
  EXPECT_TRUE(plan.startsEpoch(68));
  EXPECT_EQ(plan.at(68).epoch, 2);
  EXPECT_EQ(plan.at(68 + 41).epoch, 3);
  EXPECT_EQ(plan.iterationsFor(3), 68 + 41);
  EXPECT_EQ(plan.iterationsFor(1), 45);  // done before the anchor
  EXPECT_EQ(plan.gridStep(68), 2 * 41);
  EXPECT_THROW(plan.at(44), InvalidArgument);

  // Epoch 1: the old run's 14 steps on 4 ranks, then the plan's 23 on 3.
  const int64_t epoch = 1;
  std::multiset<int64_t> taken;
  for (int r = 0; r < 4; ++r) {
    const std::vector<int64_t> mine = ShardSampler(l, 10, r, 4, {}, 42).stepOrder(epoch, 14, 32, 8);
    taken.insert(mine.begin(), mine.end());
  }
  for (int r = 0; r < 3; ++r) {
    const std::vector<int64_t> mine =
        ShardSampler(l, 10, r, 3, {}, 42).stepOrder(epoch, plan.stepsInFirstEpoch, 24, 8, 448);
    ASSERT_EQ(mine.size(), size_t(23 * 8));
    taken.insert(mine.begin(), mine.end());
  }
  // One rank's order is the epoch's permutation: its first 448 + 23·24.
  const std::vector<int64_t> one = ShardSampler(l, 10, 0, 1, {}, 42).epochOrder(epoch, n);
  EXPECT_EQ(taken, std::multiset<int64_t>(one.begin(), one.begin() + 448 + 23 * 24));
  EXPECT_EQ(std::set<int64_t>(taken.begin(), taken.end()).size(), taken.size());  // once each
}

TEST(BatchPlan, ResizesAnchorAgainAndTheirPlansSurviveJson) {
  const BatchPlan first = resizedBatchPlan(uniformBatchPlan(32, 31), 45, 24, 1003);
  const BatchPlan second = resizedBatchPlan(first, 70, 40, 1003);  // epoch 2, step 2 of 24
  EXPECT_EQ(second.at(70).epoch, 2);
  EXPECT_EQ(second.at(70).position, 48);
  EXPECT_EQ(second.samplesAt(70), 45 * 32 + 25 * 24);
  EXPECT_EQ(second.stepsInFirstEpoch, (1003 - 48) / 40);
  const BatchPlan back = batchPlanFromJson(second.toJson(), "f");
  for (int64_t n = 70; n < 200; ++n) {
    EXPECT_EQ(back.at(n).epoch, second.at(n).epoch);
    EXPECT_EQ(back.at(n).position, second.at(n).position);
  }
  // The same batch again is the same walk (a "global" resize keeps the plan).
  const BatchPlan same = resizedBatchPlan(first, 70, 24, 1003);
  for (int64_t n = 70; n < 200; ++n) EXPECT_EQ(same.at(n).position, first.at(n).position) << n;
  EXPECT_THROW(resizedBatchPlan(first, 70, 2000, 1003), InvalidArgument);
  EXPECT_THROW(batchPlanFromJson("{\"epoch\": 1}", "f"), InvalidArgument);
  EXPECT_THROW(batchPlanFromJson("not json", "f"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::train
