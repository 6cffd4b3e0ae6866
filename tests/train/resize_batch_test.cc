// What a resize keeps (--resize-batch, train/data/batch_plan.h), on the
// SimGrid engine: a 4-worker BSP run of batch 8 on 2048 samples (global 32,
// 64 steps per epoch, 2 epochs) stopped after iteration 32, in the middle of
// epoch 0, and resumed on 3 workers
//   - keeping the per-worker batch: the rest of epoch 0 takes its 1024
//     untaken positions in 42 steps of 24, epoch 1 is 85 steps of 24, so
//     the run ends at iteration 159 after 2 epochs and 4072 samples (the
//     tails shorter than a batch are dropped, as every epoch drops them);
//     --lr-scaling linear's peak follows the global batch (3 x lr); a
//     further stop and same-count resume walks the checkpointed plan and
//     ends bit for bit where the uninterrupted resized run ends;
//   - keeping the global batch (the default) ends at iteration 128 as the
//     uninterrupted run does.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

using testing::Outcome;
using testing::runInFolder;

class ResizeBatch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
  void TearDown() override { unsetenv("TETRAD_TEST_STOP_AT"); }

  TrainConfig config(const std::string& name) {
    TrainConfig c = testing::equivalenceConfig("mlp", 8, 0, "ring");
    c.maxIters = 0;
    c.epochs = 2;
    c.workers = 4;
    c.logEvery = 8;
    c.evalEvery = 32;
    c.checkpointEvery = 16;
    c.lr = 0.004;
    c.lrScaling = "linear";
    c.compute = "fixed:5ms";
    c.out = testing::makeTempDir("resize-batch-" + name);
    return c;
  }

  // Stops `c` after iteration `at` and resumes it on `workers`.
  Outcome stopAndResume(TrainConfig c, int64_t at, int workers) {
    setenv("TETRAD_TEST_STOP_AT", std::to_string(at).c_str(), 1);
    const Outcome stopped = runInFolder(c, data_, c.workers);
    unsetenv("TETRAD_TEST_STOP_AT");
    EXPECT_EQ(stopped.status, "interrupted");
    c.workers = workers;
    c.resume = c.out;
    return runInFolder(c, data_, workers);
  }

  static double lastLr(const Outcome& run) {
    for (auto it = run.metrics.rbegin(); it != run.metrics.rend(); ++it) {
      if ((*it)["kind"] == "train") return (*it)["lr"].get<double>();
    }
    return -1;
  }

  DataSplits data_ = testing::smallSynthetic(2048, 256);
};

TEST_F(ResizeBatch, PerWorkerBatchWalksTheRestOfTheEpochThenWholeEpochsOfTheNewBatch) {
  TrainConfig whole = config("whole");
  const Outcome uninterrupted = runInFolder(whole, data_, 4);
  ASSERT_EQ(uninterrupted.status, "finished");
  EXPECT_EQ(uninterrupted.iterations, 128);

  TrainConfig c = config("per-worker");
  c.resizeBatch = "per-worker";
  const Outcome resized = stopAndResume(c, 32, 3);
  ASSERT_EQ(resized.status, "finished");
  EXPECT_EQ(resized.iterations, 32 + 42 + 85);
  EXPECT_EQ(resized.samples, 32 * 32 + 127 * 24);
  EXPECT_DOUBLE_EQ(resized.epochs, 2.0);
  EXPECT_EQ(resized.metrics.back()["iteration"], 159);
  EXPECT_DOUBLE_EQ(lastLr(resized), 3 * c.lr);        // linear: global 24 / batch 8
  EXPECT_DOUBLE_EQ(lastLr(uninterrupted), 4 * c.lr);  // global 32
  EXPECT_NEAR(resized.finalAccuracy, uninterrupted.finalAccuracy, 0.06);
  // The epoch boundary moved with the batch: the epoch-end evaluation is at
  // iteration 74 (32 + 42), which --eval-every 32 does not give.
  bool evaluatedAt74 = false;
  for (const nlohmann::json& record : resized.metrics) {
    if (record["kind"] == "eval" && record["iteration"] == 74) {
      evaluatedAt74 = true;
      EXPECT_DOUBLE_EQ(record["epoch"].get<double>(), 1.0);
    }
  }
  EXPECT_TRUE(evaluatedAt74);

  // Stopped again on the new count and resumed there: the checkpoint's plan
  // goes on, and so does the run, bit for bit.
  TrainConfig again = config("per-worker-again");
  again.resizeBatch = "per-worker";
  setenv("TETRAD_TEST_STOP_AT", "32", 1);
  EXPECT_EQ(runInFolder(again, data_, 4).status, "interrupted");
  again.workers = 3;
  again.resume = again.out;
  setenv("TETRAD_TEST_STOP_AT", "100", 1);
  EXPECT_EQ(runInFolder(again, data_, 3).status, "interrupted");
  unsetenv("TETRAD_TEST_STOP_AT");
  const Outcome twice = runInFolder(again, data_, 3);
  ASSERT_EQ(twice.status, "finished");
  EXPECT_EQ(twice.iterations, 159);
  EXPECT_EQ(twice.parameters, resized.parameters);
}

TEST_F(ResizeBatch, GlobalBatchKeepsTheRunsIterations) {
  TrainConfig c = config("global");
  const Outcome resized = stopAndResume(c, 32, 3);
  ASSERT_EQ(resized.status, "finished");
  EXPECT_EQ(resized.iterations, 128);
  EXPECT_EQ(resized.samples, 128 * 32);
  EXPECT_DOUBLE_EQ(lastLr(resized), 4 * c.lr);  // the global batch, so the peak, kept
}

}  // namespace
}  // namespace tetrad::train
