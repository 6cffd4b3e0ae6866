// Communication scheduling in the worker loop (rank_trainer_overlap.cc), on
// the SimGrid engine:
//   - every policy gives the parameters of `none` bit for bit (scheduling
//     only reorders communication), with `none` compression on an all-reduce
//     whose sums do not depend on where a bucket is cut (recursive
//     doubling), with a deterministic compressor (top-k: same per-tensor
//     buckets) and on the parameter server;
//   - with a fixed compute model on a contention-free star (CM02), the
//     simulated iteration time of wfbp and fusion equals the pipeline
//     formula of sched/pipeline_cost.h within 5%; mgwfbp is never slower
//     than wfbp and one single bucket; priority beats wfbp's FIFO order when
//     communication is about as long as computation;
//   - timeline.json is valid, has one event per bucket per iteration, its
//     tracks never overlap and its communication adds up to the summary's;
//   - a timeout in the communication task reaches the worker as an error.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/train/bench/sched_bench.h"
#include "tetrad/train/record/timeline.h"
#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

TrainConfig schedConfig(const std::string& sched, const std::string& algorithm = "rd") {
  TrainConfig c = testing::equivalenceConfig("mlp", 8, 5, algorithm);
  c.workers = 4;
  c.sched = sched;
  return c;
}

class SchedTrain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
  DataSplits data_ = testing::smallSynthetic(512, 64);
};

TEST_F(SchedTrain, EveryPolicyGivesTheParametersOfNone) {
  const auto none = testing::finalParameters(schedConfig("none"), data_, 4);
  ASSERT_FALSE(none.empty());
  for (const char* sched : {"wfbp", "fusion:64KiB", "mgwfbp", "priority:64KiB"}) {
    EXPECT_EQ(testing::finalParameters(schedConfig(sched), data_, 4), none) << sched;
  }
  // A deterministic compressor: top-k with per-tensor buckets either way
  // (--bucket-size 0 against wfbp), and with one fused bucket either way
  // (the default against fusion: the cnn fits one 25 MiB bucket).
  TrainConfig topk = schedConfig("none", "ring");
  topk.compress = "topk:0.1,ef";
  const auto topkFused = testing::finalParameters(topk, data_, 4);
  topk.bucketSize = "0";
  const auto topkNone = testing::finalParameters(topk, data_, 4);
  EXPECT_NE(topkNone, topkFused);  // top-k of the bucket is not top-k per tensor
  topk.sched = "wfbp";
  EXPECT_EQ(testing::finalParameters(topk, data_, 4), topkNone);
  topk.sched = "fusion:25MiB:25MiB";  // no smaller first bucket
  EXPECT_EQ(testing::finalParameters(topk, data_, 4), topkFused);
  // The parameter server (bsp: sums in rank order).
  TrainConfig ps = schedConfig("none");
  ps.arch = "ps:2";
  const auto psNone = testing::finalParameters(ps, data_, 4);
  ps.sched = "fusion:64KiB";
  EXPECT_EQ(testing::finalParameters(ps, data_, 4), psNone);
}

// The 16-bit baseline users run overlaps: fp16 and bf16 buckets under every
// overlap schedule give the parameters of the same wire after the backward
// pass (the buckets are the same: fusion with the default bucket size).
TEST_F(SchedTrain, SixteenBitWiresRunWithEveryOverlapSchedule) {
  for (const char* wire : {"fp16", "bf16"}) {
    TrainConfig c = schedConfig("none", "ring");
    c.compress = wire;
    c.bucketSize = "0";  // one bucket per tensor: the same units for every schedule
    const auto after = testing::finalParameters(c, data_, 4);
    ASSERT_FALSE(after.empty()) << wire;
    for (const char* sched : {"wfbp", "mgwfbp", "ddp", "priority"}) {
      c.sched = sched;
      const auto overlapped = testing::finalParameters(c, data_, 4);
      ASSERT_EQ(overlapped.size(), after.size()) << wire << " " << sched;
      for (float v : overlapped) ASSERT_TRUE(std::isfinite(v)) << wire << " " << sched;
      if (std::string(sched) == "wfbp") {
        EXPECT_EQ(overlapped, after) << wire << " " << sched;
      }
    }
  }
}

// Simulated seconds per iteration of `sched` (cnn, fixed compute, CM02 star).
struct Timed {
  double perIteration = 0;
  double predicted = 0;
};

Timed timeIt(const std::string& sched, const std::string& cluster, const std::string& fixed,
             int iterations = 4) {
  TrainConfig c = testing::equivalenceConfig("cnn", 8, iterations, "ring");
  c.workers = 4;
  c.sched = sched;
  c.cluster = cluster;
  c.compute = "fixed:" + fixed;
  c.onNonFinite = "off";
  c.timeline = "off";
  c.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  c.out = testing::makeTempDir("sched_timing");
  c.data = "synthetic";
  c.trainSamples = 2048;
  c.testSamples = 64;
  const TrainSummary summary = runTraining(c);
  Timed t;
  t.perIteration = summary.trainTime / double(summary.iterations);
  // The pipeline formula from the same inputs the trainer plans with.
  t.predicted = predictSchedule(c, sched).predictedSeconds;
  return t;
}

TEST_F(SchedTrain, SimulatedIterationsFollowThePipelineFormula) {
  for (const char* sched : {"wfbp", "fusion:1MiB"}) {
    const Timed t = timeIt(sched, "sim:1Gbps,20us", "40ms");
    EXPECT_NEAR(t.perIteration / t.predicted, 1.0, 0.05)
        << sched << ": simulated " << t.perIteration << " s, formula " << t.predicted << " s";
  }
  const double wfbp = timeIt("wfbp", "sim:10Gbps,200us", "20ms").perIteration;
  const double single = timeIt("fusion:1GiB", "sim:10Gbps,200us", "20ms").perIteration;
  const double merged = timeIt("mgwfbp", "sim:10Gbps,200us", "20ms").perIteration;
  EXPECT_LE(merged, std::min(wfbp, single) * 1.001)
      << "mgwfbp " << merged << " wfbp " << wfbp << " single bucket " << single;
  // Communication about as long as computation: front layers first lets the
  // next forward start early.
  const double fifo = timeIt("wfbp", "sim:1Gbps,20us", "40ms").perIteration;
  const double priority = timeIt("priority:1MiB", "sim:1Gbps,20us", "40ms").perIteration;
  EXPECT_LT(priority, fifo) << "priority " << priority << " wfbp " << fifo;
}

TEST_F(SchedTrain, PredictionChargesAThroughputAsItsBatchTime) {
  TrainConfig c = testing::equivalenceConfig("cnn", 8, 4, "ring");
  c.workers = 4;
  c.cluster = "sim:1Gbps,20us";
  c.compute = "throughput:200";  // 8 samples at 200/s: 40 ms a batch
  const double rated = predictSchedule(c, "priority:1MiB").predictedSeconds;
  c.compute = fmt::format("fixed:{}ms", 1000.0 * c.batchSize / 200);
  const double fixed = predictSchedule(c, "priority:1MiB").predictedSeconds;
  EXPECT_GT(rated, 0.02);
  EXPECT_NEAR(rated, fixed, 1e-9 * fixed);
}

TEST_F(SchedTrain, TimelineIsValidAndAddsUpToTheSummary) {
  TrainConfig c = schedConfig("wfbp");
  c.compute = "fixed:10ms";
  c.out = testing::makeTempDir("sched_timeline");
  c.trainSamples = 512;
  c.testSamples = 64;
  const TrainSummary summary = runTraining(c);
  std::ifstream file(c.out + "/timeline.json");
  ASSERT_TRUE(file.good());
  const nlohmann::json trace = nlohmann::json::parse(file);
  std::vector<TimelineEvent> events;
  std::map<int, double> comm;
  std::map<int, int> buckets;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    TimelineEvent event;
    event.rank = e.at("pid");
    event.track = TimelineTrack(int(e.at("tid")));
    event.name = e.at("name");
    event.category = e.at("cat");
    event.start = double(e.at("ts")) / 1e6;
    event.end = event.start + double(e.at("dur")) / 1e6;
    if (event.category == "comm") comm[event.rank] += double(e.at("dur")) / 1e6;
    if (event.name.rfind("bucket ", 0) == 0) ++buckets[event.rank];
    events.push_back(event);
  }
  EXPECT_NO_THROW(checkTracksDoNotOverlap(events));
  ASSERT_EQ(summary.commTime.size(), 4u);
  for (int rank = 0; rank < 4; ++rank) {
    // mlp: 6 tensors, one unit each under wfbp, 5 iterations.
    EXPECT_EQ(buckets[rank], 6 * 5) << "rank " << rank;
    EXPECT_NEAR(comm[rank], summary.commTime[size_t(rank)], 1e-6) << "rank " << rank;
  }
}

TEST_F(SchedTrain, ATimeoutInTheCommunicationTaskReachesTheWorker) {
  TrainConfig c = schedConfig("wfbp");
  c.compute = "fixed:20ms";
  c.stragglers = {"0:2000"};  // rank 0 computes for 40 s: its peers' task times out
  c.timeout = 5;
  c.out = testing::makeTempDir("sched_timeout");
  try {
    runTraining(c);
    FAIL() << "expected a timeout";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetrad::train
