// MG-WFBP: the DP optimum against brute force over every contiguous
// partition, the paper's greedy rule against the optimum, and hand cases.
#include "tetrad/sched/mgwfbp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <random>

#include "sched_test_util.h"
#include "tetrad/sched/pipeline_cost.h"
#include "tetrad/sched/wfbp.h"

namespace tetrad::sched {
namespace {

// The plan whose bucket boundaries are the set bits of `cuts` (bit i: a new
// bucket starts at slot i + 1).
SchedulePlan partitionFromMask(std::span<const TensorSlot> slots, uint64_t cuts) {
  SchedulePlan plan;
  plan.name = "mask";
  Bucket open{0, 0, 0};
  for (size_t i = 0; i < slots.size(); ++i) {
    ++open.count;
    open.bytes += slots[i].bytes;
    if (i + 1 == slots.size() || (cuts >> i & 1)) {
      plan.buckets.push_back(open);
      open = Bucket{i + 1, 0, 0};
    }
  }
  return plan;
}

// The iteration time of a whole-tensor plan through the pipeline model (no
// forward time: only the backward and the exchange matter here).
double predicted(std::span<const TensorSlot> slots, const SchedulePlan& plan,
                 const CommCost& cost) {
  int layers = 0;
  for (const TensorSlot& s : slots) layers = std::max(layers, s.layer + 1);
  const std::vector<double> noForward(static_cast<size_t>(layers), 0.0);
  return predictIteration(slots, noForward, plan, cost).iterationSeconds;
}

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

TEST(Mgwfbp, OptimalEqualsBruteForceAndGreedyIsNeverBetter) {
  std::mt19937_64 rng(2019);
  constexpr int kInstances = 400;
  int greedyOptimal = 0;
  double worstGreedyRatio = 1;
  for (int instance = 0; instance < kInstances; ++instance) {
    std::uniform_int_distribution<size_t> count(1, 10);
    const size_t n = count(rng);
    // Sizes up to 4 MB and backward times up to 2 ms: communication from far
    // below to far above computation, latency- and bandwidth-bound.
    const std::vector<TensorSlot> slots = testing::randomSlots(rng, n, 4'000'000, 2e-3);
    const CommCost cost = testing::randomRingCost(rng);
    double best = std::numeric_limits<double>::infinity();
    for (uint64_t cuts = 0; cuts < (uint64_t{1} << (n - 1)); ++cuts) {
      best = std::min(best, predicted(slots, partitionFromMask(slots, cuts), cost));
    }
    const SchedulePlan optimal = mgwfbpOptimalPlan(slots, cost);
    const SchedulePlan greedy = mgwfbpGreedyPlan(slots, cost);
    testing::expectCoversInReadyOrder(slots, optimal);
    testing::expectCoversInReadyOrder(slots, greedy);
    const double tOptimal = predicted(slots, optimal, cost);
    const double tGreedy = predicted(slots, greedy, cost);
    ASSERT_TRUE(near(tOptimal, best))
        << "instance " << instance << ": DP " << tOptimal << " s, brute force " << best << " s";
    EXPECT_TRUE(near(bucketsFinishSeconds(slots, optimal.buckets, cost), tOptimal));
    EXPECT_LE(tOptimal, predicted(slots, wfbpPlan(slots), cost) * (1 + 1e-12));
    EXPECT_LE(tOptimal, predicted(slots, partitionFromMask(slots, 0), cost) * (1 + 1e-12));
    EXPECT_GE(tGreedy, tOptimal * (1 - 1e-12));
    if (near(tGreedy, tOptimal)) ++greedyOptimal;
    worstGreedyRatio = std::max(worstGreedyRatio, tGreedy / tOptimal);
  }
  std::cout << "[ mgwfbp ] greedy rule optimal on " << greedyOptimal << " of " << kInstances
            << " random instances (L <= 10); worst greedy/optimal = " << worstGreedyRatio << "\n";
  RecordProperty("greedy_optimal", greedyOptimal);
  // The greedy rule is a heuristic: it must not always be optimal on this
  // mix (else the DP would be pointless), nor usually far off.
  EXPECT_LT(greedyOptimal, kInstances);
  EXPECT_GT(greedyOptimal, kInstances / 2);
}

// Three tensors ready at 1, 3 and 3.5 s, c(b) = 0.5 s + b / 1000 B/s:
//   wfbp      {0} 1–5.5, {1} 5.5–8, {2} 8–9.5           → 9.5
//   one       {0,1,2} 3.5–11                             → 11
//   best      {0} 1–5.5, {1,2} 5.5–9                     → 9
// Greedy: slot 1 is ready 2 s after {0} starts (> the 0.5 s start-up): no
// merge; slot 2 is ready before {1} can start (5.5): merge. So greedy is
// optimal here.
TEST(Mgwfbp, HandComputedThreeTensors) {
  const std::vector<TensorSlot> slots = {{4000, 1.0, 2}, {2000, 2.0, 1}, {1000, 0.5, 0}};
  const CommCost cost("test", [](uint64_t b) { return 0.5 + static_cast<double>(b) / 1000; });
  const SchedulePlan optimal = mgwfbpOptimalPlan(slots, cost);
  ASSERT_EQ(optimal.buckets.size(), 2u);
  EXPECT_EQ(optimal.buckets[0].count, 1u);
  EXPECT_EQ(optimal.buckets[1].count, 2u);
  EXPECT_DOUBLE_EQ(bucketsFinishSeconds(slots, optimal.buckets, cost), 9.0);
  const SchedulePlan greedy = mgwfbpGreedyPlan(slots, cost);
  ASSERT_EQ(greedy.buckets.size(), 2u);
  EXPECT_EQ(greedy.buckets[1].first, 1u);
  EXPECT_DOUBLE_EQ(bucketsFinishSeconds(slots, wfbpPlan(slots).buckets, cost), 9.5);
}

// When start-up latency dominates, both merge everything into one message;
// when it is zero and the network is slow, merging never pays for the
// optimum's first message (it would wait for later tensors).
TEST(Mgwfbp, ExtremesMergeAllOrNothing) {
  const std::vector<TensorSlot> slots = {
      {400, 1e-3, 3}, {400, 1e-3, 2}, {400, 1e-3, 1}, {400, 1e-3, 0}};
  const CommCost latencyBound = ringAllreduceCommCost(32, 1e-2, 1e-12);
  EXPECT_EQ(mgwfbpGreedyPlan(slots, latencyBound).buckets.size(), 1u);
  EXPECT_EQ(mgwfbpOptimalPlan(slots, latencyBound).buckets.size(), 1u);
  // 400 B at 1.75 × 400 × 1e-5 = 7 ms each, no start-up: the optimum sends
  // every tensor as soon as it is ready (4 ms backward, channel-bound).
  const CommCost bandwidthBound = ringAllreduceCommCost(8, 0, 1e-5);
  const SchedulePlan optimal = mgwfbpOptimalPlan(slots, bandwidthBound);
  EXPECT_NEAR(bucketsFinishSeconds(slots, optimal.buckets, bandwidthBound), 1e-3 + 4 * 7e-3, 1e-12);
}

}  // namespace
}  // namespace tetrad::sched
