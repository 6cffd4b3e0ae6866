// The pipeline cost model against hand-computed schedules, and its
// invariants on random instances.
#include <gtest/gtest.h>

#include <random>

#include "sched_test_util.h"
#include "tetrad/core/error.h"
#include "tetrad/sched/fusion.h"
#include "tetrad/sched/pipeline_cost.h"
#include "tetrad/sched/plan_spec.h"
#include "tetrad/sched/priority.h"
#include "tetrad/sched/wfbp.h"

namespace tetrad::sched {
namespace {

// Three layers; ready order: layer 2 (4000 B, backward 1 s), layer 1
// (2000 B, 2 s), layer 0 (1000 B, 0.5 s): ready at 1, 3, 3.5; B = 3.5.
// Forward 0.3, 0.2, 0.1 s: F = 0.6. c(b) = 0.5 s + b / 1000 B/s.
class ThreeLayers : public ::testing::Test {
 protected:
  const std::vector<TensorSlot> slots_ = {{4000, 1.0, 2}, {2000, 2.0, 1}, {1000, 0.5, 0}};
  const std::vector<double> forward_ = {0.3, 0.2, 0.1};
  const CommCost cost_{"test", [](uint64_t b) { return 0.5 + static_cast<double>(b) / 1000; }};
};

TEST_F(ThreeLayers, Wfbp) {
  // {2} 1–5.5, {1} 5.5–8, {0} 8–9.5. T = 0.6 + 9.5. With forward overlap:
  // layer 0 waits for 9.5: 9.8, layer 1 10.0, layer 2 10.1 (no gain).
  const IterationPrediction p = predictIteration(slots_, forward_, wfbpPlan(slots_), cost_);
  EXPECT_DOUBLE_EQ(p.forwardSeconds, 0.6);
  EXPECT_DOUBLE_EQ(p.backwardSeconds, 3.5);
  ASSERT_EQ(p.messages.size(), 3u);
  EXPECT_DOUBLE_EQ(p.messages[0].start, 1.0);
  EXPECT_DOUBLE_EQ(p.messages[0].end, 5.5);
  EXPECT_DOUBLE_EQ(p.messages[1].start, 5.5);
  EXPECT_DOUBLE_EQ(p.messages[2].end, 9.5);
  EXPECT_DOUBLE_EQ(p.commBusySeconds, 8.5);
  EXPECT_DOUBLE_EQ(p.iterationSeconds, 10.1);
  EXPECT_DOUBLE_EQ(p.overlappedSeconds, 10.1);
  EXPECT_EQ(p.layerUpdateSeconds, (std::vector<double>{9.5, 8.0, 5.5}));
}

TEST_F(ThreeLayers, NoneAndOneBucket) {
  // none: everything after the backward, 3.5–11: T = 11.6.
  const SchedulePlan none = parseSchedulePlanSpec("none").plan(slots_, cost_);
  EXPECT_TRUE(none.afterBackward);
  EXPECT_DOUBLE_EQ(predictIteration(slots_, forward_, none, cost_).iterationSeconds, 11.6);
  // fusion:6000B:6000B: {2,1} 3–9.5 (6000 B fits the cap exactly), {0} 9.5–11.
  const SchedulePlan fused = fusionPlan(slots_, 6000, 6000);
  ASSERT_EQ(fused.buckets.size(), 2u);
  const IterationPrediction p = predictIteration(slots_, forward_, fused, cost_);
  EXPECT_DOUBLE_EQ(p.messages[0].start, 3.0);
  EXPECT_DOUBLE_EQ(p.messages[0].end, 9.5);
  EXPECT_DOUBLE_EQ(p.iterationSeconds, 11.6);
}

TEST_F(ThreeLayers, MgwfbpOptimal) {
  // {2} 1–5.5, {1,0} 5.5–9: T = 9.6; overlap: 9.3, 9.5, 9.6.
  const SchedulePlan plan = parseSchedulePlanSpec("mgwfbp:optimal").plan(slots_, cost_);
  const IterationPrediction p = predictIteration(slots_, forward_, plan, cost_);
  EXPECT_DOUBLE_EQ(p.iterationSeconds, 9.6);
  EXPECT_DOUBLE_EQ(p.overlappedSeconds, 9.6);
}

TEST_F(ThreeLayers, PriorityWholeTensors) {
  // At 1: only layer 2 → 1–5.5. At 5.5 layers 1 and 0 wait: layer 0 first,
  // 5.5–7; layer 1 7–9.5. T = 0.6 + 9.5 = 10.1. Overlap: layer 0 starts at
  // 7 → 7.3, layer 1 waits for 9.5 → 9.7, layer 2 → 9.8.
  const SchedulePlan plan = partitionPlan(slots_, 1 << 20);
  const IterationPrediction p = predictIteration(slots_, forward_, plan, cost_);
  ASSERT_EQ(p.messages.size(), 3u);
  EXPECT_EQ(p.messages[1].unit, 2u);
  EXPECT_DOUBLE_EQ(p.messages[1].end, 7.0);
  EXPECT_DOUBLE_EQ(p.iterationSeconds, 10.1);
  EXPECT_DOUBLE_EQ(p.overlappedSeconds, 9.8);
}

TEST_F(ThreeLayers, PriorityPreemptsAtChunkBoundaries) {
  // 1000-byte chunks (1.5 s each): layer 2's chunks 0–3, layer 1's 4–5,
  // layer 0's 6. 0: 1–2.5, 1: 2.5–4; at 4 layers 1 and 0 are ready: 6:
  // 4–5.5, 4: 5.5–7, 5: 7–8.5, then 2: 8.5–10, 3: 10–11.5.
  const SchedulePlan plan = partitionPlan(slots_, 1000);
  const IterationPrediction p = predictIteration(slots_, forward_, plan, cost_);
  std::vector<size_t> order;
  for (const MessageTiming& m : p.messages) order.push_back(m.unit);
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 6, 4, 5, 2, 3}));
  EXPECT_DOUBLE_EQ(p.messages.back().end, 11.5);
  EXPECT_EQ(p.layerUpdateSeconds, (std::vector<double>{5.5, 8.5, 11.5}));
  EXPECT_DOUBLE_EQ(p.iterationSeconds, 12.1);
  EXPECT_DOUBLE_EQ(p.overlappedSeconds, 11.6);  // 5.8, 8.7, 11.6
}

// Communication ≈ computation: three equal layers, forward 1, backward 1,
// exchange 2 per layer. FIFO (WFBP) sends the back layer first, so the next
// forward waits for the front layer until 7: T_ov = 7 + 3 = 10. Priority
// sends layer 0 (ready at 3) before layer 1 (ready at 2) once the channel is
// free at 3: layer 0 is in at 5, layer 1 at 7: 6, 8, 9: T_ov = 9.
TEST(PipelinePriority, BeatsFifoWhenCommunicationMatchesComputation) {
  const std::vector<TensorSlot> slots = {{2000, 1, 2}, {2000, 1, 1}, {2000, 1, 0}};
  const std::vector<double> forward = {1, 1, 1};
  const CommCost cost("test", [](uint64_t b) { return static_cast<double>(b) / 1000; });
  const IterationPrediction fifo = predictIteration(slots, forward, wfbpPlan(slots), cost);
  const IterationPrediction priority =
      predictIteration(slots, forward, partitionPlan(slots, 2000), cost);
  EXPECT_DOUBLE_EQ(fifo.overlappedSeconds, 10.0);
  EXPECT_DOUBLE_EQ(priority.overlappedSeconds, 9.0);
  // 500-byte chunks preempt layer 2 as soon as layer 1 is ready (at 2) and
  // layer 1 when layer 0 is (at 3): updates in at 5, 6, 7 → 6, 7, 8.
  EXPECT_DOUBLE_EQ(
      predictIteration(slots, forward, partitionPlan(slots, 500), cost).overlappedSeconds, 8.0);
  // Without forward overlap there is nothing to gain: both end at 3 + 7.
  EXPECT_DOUBLE_EQ(fifo.iterationSeconds, 10.0);
  EXPECT_DOUBLE_EQ(priority.iterationSeconds, 10.0);
}

TEST(Pipeline, InvariantsOnRandomInstances) {
  std::mt19937_64 rng(5);
  for (int instance = 0; instance < 200; ++instance) {
    std::uniform_int_distribution<size_t> count(1, 30);
    const std::vector<TensorSlot> slots = testing::randomSlots(rng, count(rng), 2'000'000, 1e-3);
    const CommCost cost = testing::randomRingCost(rng);
    std::vector<double> forward(static_cast<size_t>(slots.front().layer) + 1);
    std::uniform_real_distribution<double> f(0, 1e-3);
    for (double& t : forward) t = f(rng);
    for (const char* text : {"none", "wfbp", "fusion:1MB", "mgwfbp", "priority:256KB"}) {
      const SchedulePlan plan = parseSchedulePlanSpec(text).plan(slots, cost);
      const IterationPrediction p = predictIteration(slots, forward, plan, cost);
      const double slack = 1e-12 * p.iterationSeconds;
      // Forward overlap never hurts; nothing beats compute alone or the
      // channel's busy time after the first slot is ready.
      EXPECT_LE(p.overlappedSeconds, p.iterationSeconds + slack) << text;
      EXPECT_GE(p.overlappedSeconds, p.forwardSeconds + p.backwardSeconds - slack) << text;
      EXPECT_GE(p.exchangeEndSeconds, slots[0].backwardSeconds + p.commBusySeconds - slack) << text;
      // One channel: messages never overlap and never start before ready.
      for (size_t m = 1; m < p.messages.size(); ++m) {
        EXPECT_GE(p.messages[m].start, p.messages[m - 1].end) << text;
      }
      EXPECT_EQ(p.messages.size(), plan.messageCount()) << text;
    }
  }
}

TEST(Pipeline, RefusesMissingForwardTimes) {
  const std::vector<TensorSlot> slots = {{8, 1, 2}, {8, 1, 0}};
  const CommCost cost = ringAllreduceCommCost(4, 1e-5, 1e-9);
  const std::vector<double> tooFew = {1, 1};
  EXPECT_THROW(predictIteration(slots, tooFew, wfbpPlan(slots), cost), InvalidArgument);
  const std::vector<double> negative = {1, -1, 1};
  EXPECT_THROW(predictIteration(slots, negative, wfbpPlan(slots), cost), InvalidArgument);
}

TEST(CommCost, RingClosedFormAndCollectiveModelAgree) {
  // p divides the float count: the step model equals the closed form.
  const CommCost closed = ringAllreduceCommCost(8, 25e-6, 8e-10);
  CostParams params;
  params.alpha = 25e-6;
  params.beta = 8e-10;
  const CommCost steps = allreduceCommCost(AllreduceAlgorithm::kRing, 8, params);
  EXPECT_NEAR(closed.seconds(4 * 8000), steps.seconds(4 * 8000), 1e-15);
  EXPECT_DOUBLE_EQ(closed.startupSeconds(), 14 * 25e-6);
  EXPECT_DOUBLE_EQ(closed.seconds(1000), 14 * 25e-6 + 1.75 * 1000 * 8e-10);
  EXPECT_DOUBLE_EQ(ringAllreduceCommCost(1, 1, 1).seconds(1000), 0.0);
  EXPECT_THROW(ringAllreduceCommCost(0, 1e-5, 1e-9), InvalidArgument);
  EXPECT_THROW(allreduceCommCost(AllreduceAlgorithm::kNative, 4, params), Unsupported);
  const CommCost broken("broken", [](uint64_t) { return -1.0; });
  EXPECT_THROW(broken.seconds(4), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::sched
