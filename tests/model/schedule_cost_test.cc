// The schedule dimension in the cost model (model/schedule_cost.h): "none"
// is predictMethod(); an overlapping schedule is the pipeline model of
// sched/pipeline_cost.h on the method's network, with the guard's wait and
// all-gather when the guard is on; what it does not cover is refused.
#include "tetrad/model/schedule_cost.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/model/codec_cost.h"
#include "tetrad/model/network_model.h"
#include "tetrad/model/schedule_advice.h"

namespace tetrad::model {
namespace {

ModelContext cnnOn(const std::string& cluster) {
  ModelContext c;
  c.workload = modelWorkload("cnn");
  c.network = networkModel(cluster, 8);
  c.compute = computeTime(c.workload, 32, -1, 100);
  c.codec = [](const Compressor&, const Workload&) { return CodecCost{0, 0, false, "none"}; };
  return c;
}

const Method kBsp{"bsp", "allreduce:ring", "none"};

TEST(modelScheduleCost, NoneIsTheMethodsOwnPrediction) {
  const ModelContext c = cnnOn("sim:10Gbps,25us");
  EXPECT_DOUBLE_EQ(predictScheduled(kBsp, "none", c).seconds, predictMethod(kBsp, c).seconds);
}

// Overlap hides the exchange behind the backward pass: MG-WFBP's optimal
// merge is never slower than sending after it (one merged bucket is one of
// its plans), no schedule is faster than compute alone, and one message per
// tensor pays a latency each (WFBP at 1 ms is slower than none); with the
// guard the loop waits for the exchange and pays the all-gather.
TEST(modelScheduleCost, OverlapHidesCommunicationBehindBackward) {
  for (const char* cluster : {"sim:1Gbps,50us", "sim:10Gbps,25us", "sim:100Gbps,1ms"}) {
    ModelContext c = cnnOn(cluster);
    c.nonFiniteGuard = false;
    const double none = predictMethod(kBsp, c).seconds;
    for (const char* sched : {"wfbp", "mgwfbp", "fusion:1MiB", "priority:256KiB"}) {
      const Prediction p = predictScheduled(kBsp, sched, c);
      if (std::string(sched) == "mgwfbp") {
        EXPECT_LE(predictScheduled(kBsp, "mgwfbp:optimal", c).seconds, none * (1 + 1e-9))
            << cluster;
      }
      EXPECT_GE(p.seconds, c.compute.seconds * (1 - 1e-9)) << cluster << " " << sched;
      c.nonFiniteGuard = true;
      const Prediction guarded = predictScheduled(kBsp, sched, c);
      c.nonFiniteGuard = false;
      EXPECT_GE(guarded.seconds, p.seconds + nonFiniteGuardSeconds(c.network) * (1 - 1e-9))
          << cluster << " " << sched;
      EXPECT_NE(guarded.derivation.find("guard"), std::string::npos) << guarded.derivation;
    }
  }
  ModelContext slow = cnnOn("sim:100Gbps,1ms");
  slow.nonFiniteGuard = false;
  EXPECT_GT(predictScheduled(kBsp, "wfbp", slow).seconds, 2 * predictMethod(kBsp, slow).seconds);
  // On 10 Gb/s the cnn's 6.6 MB all-reduce (~10 ms) hides behind ~16 ms of
  // backward: MG-WFBP is at least 20% faster than sending after it.
  ModelContext c = cnnOn("sim:10Gbps,25us");
  c.nonFiniteGuard = false;
  EXPECT_LT(predictScheduled(kBsp, "mgwfbp", c).seconds, 0.8 * predictMethod(kBsp, c).seconds);
}

TEST(modelScheduleCost, RefusesWhatItDoesNotModel) {
  const ModelContext c = cnnOn("sim:10Gbps,25us");
  EXPECT_THROW(predictScheduled({"bsp", "allreduce:ring", "topk:0.01,ef"}, "wfbp", c), Unsupported);
  EXPECT_THROW(predictScheduled({"bsp", "ps:2", "none"}, "wfbp", c), Unsupported);
  EXPECT_THROW(predictScheduled(kBsp, "nosuch", c), InvalidArgument);
  ModelContext params = c;
  params.workload = parameterWorkload(1000000);
  EXPECT_THROW(predictScheduled(kBsp, "wfbp", params), Unsupported);
}

}  // namespace
}  // namespace tetrad::model

namespace tetrad::model {
namespace {

// The schedule line of tetrad advise (schedule_advice.h): it prices the
// ranking's fastest uncompressed BSP all-reduce under every registered
// schedule, "none" first and equal to that method's own prediction, and
// names a schedule faster than none where overlap pays (the cnn on 10 Gb/s
// without the guard, as above); compressed or parameter-server rankings get
// no line, a workload without a layer table a "not modelled" one.
TEST(modelScheduleAdvice, PricesTheFastestUncompressedAllReduceUnderEverySchedule) {
  ModelContext c = cnnOn("sim:10Gbps,25us");
  c.nonFiniteGuard = false;
  Ranking ranking;
  ranking.ranked.push_back(predictMethod({"bsp", "allreduce:ring", "topk:0.01,ef"}, c));
  ranking.ranked.push_back(predictMethod({"bsp", "ps:2", "none"}, c));
  EXPECT_TRUE(adviseSchedule(ranking, c).seconds.empty());
  EXPECT_TRUE(formatScheduleAdvice(ranking, c).empty());

  ranking.ranked.push_back(predictMethod({"bsp", "allreduce:rabenseifner", "none"}, c));
  ranking.ranked.push_back(predictMethod(kBsp, c));
  const ScheduleAdvice advice = adviseSchedule(ranking, c);
  EXPECT_EQ(advice.method.label(), "bsp allreduce:rabenseifner none");
  ASSERT_GE(advice.seconds.size(), 6u);
  EXPECT_EQ(advice.seconds.front().first, "none");
  EXPECT_DOUBLE_EQ(advice.seconds.front().second, ranking.ranked[2].seconds);
  double fastest = advice.seconds.front().second;
  for (const auto& [spec, seconds] : advice.seconds) fastest = std::min(fastest, seconds);
  EXPECT_NE(advice.fastest, "none");
  EXPECT_GT(advice.speedup, 1.2);
  EXPECT_DOUBLE_EQ(advice.speedup, advice.seconds.front().second / fastest);
  const std::vector<std::string> lines = formatScheduleAdvice(ranking, c);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("fastest --sched " + advice.fastest), std::string::npos) << lines[0];

  ModelContext params = c;
  params.workload = parameterWorkload(1000000);
  Ranking plain;
  plain.ranked.push_back(predictMethod(kBsp, params));
  const std::vector<std::string> refused = formatScheduleAdvice(plain, params);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("not modelled"), std::string::npos) << refused[0];
}

}  // namespace
}  // namespace tetrad::model
