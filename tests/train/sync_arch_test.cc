// The sync and arch dimensions composed in the worker loop, on the SimGrid
// engine: the parameter server gives the parameters of all-reduce (dedicated
// and colocated, K = 1..3), ssp:0 those of PS x BSP, asp with one worker
// those of sequential SGD, local:1 those of BSP, post-local switches at T;
// SSP respects its bound under a straggler and ASP beats BSP there.
#include <gtest/gtest.h>

#include "tetrad/launch/launcher.h"
#include "tetrad/train/bench/plain_loop.h"
#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

constexpr int64_t kIterations = 6;

using testing::finalParameters;

TrainConfig point(const std::string& sync, const std::string& arch, int workers) {
  TrainConfig c = testing::equivalenceConfig("mlp", 8, kIterations);
  c.sync = sync;
  c.arch = arch;
  c.workers = workers;
  return c;
}

class SyncArch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
  DataSplits data_ = testing::smallSynthetic(512, 64);
};

TEST_F(SyncArch, ParameterServerEqualsAllreduce) {
  const std::vector<float> allreduce = finalParameters(point("bsp", "allreduce:ring", 3), data_, 3);
  const std::vector<float> again = finalParameters(point("bsp", "allreduce:ring", 3), data_, 3);
  for (const char* arch : {"ps", "ps:2", "ps:3", "ps:colocated", "ps:2:colocated"}) {
    TrainConfig c = point("bsp", arch, 3);
    c.psPartition = "64KiB";  // fc1.weight (784 KB) is split
    const std::vector<float> ps = finalParameters(c, data_, 3);
    EXPECT_LT(testing::maxRelativeDifference(ps, allreduce), 1e-5) << arch;
  }
  EXPECT_EQ(again, allreduce);  // deterministic
}

TEST_F(SyncArch, SspZeroEqualsParameterServerBsp) {
  const std::vector<float> bsp = finalParameters(point("bsp", "ps:2", 3), data_, 3);
  const std::vector<float> ssp = finalParameters(point("ssp:0", "ps:2", 3), data_, 3);
  EXPECT_LT(testing::maxRelativeDifference(ssp, bsp), 1e-5);
  const std::vector<float> colocated = finalParameters(point("ssp:0", "ps:colocated", 3), data_, 3);
  EXPECT_LT(testing::maxRelativeDifference(colocated, bsp), 1e-5);
}

TEST_F(SyncArch, AspWithOneWorkerIsSequentialSgd) {
  const TrainConfig c = point("asp", "ps", 1);
  const std::vector<float> asp = finalParameters(c, data_, 1);
  const PlainLoopResult plain = trainPlainLoop(c, data_, c.batchSize, kIterations);
  EXPECT_LT(testing::maxRelativeDifference(asp, plain.parameters), 1e-5);
  const PlainLoopResult shorter = trainPlainLoop(c, data_, c.batchSize, kIterations - 1);
  EXPECT_GT(testing::maxRelativeDifference(asp, shorter.parameters), 1e-4);
}

TEST_F(SyncArch, LocalSgdWithPeriodOneIsBsp) {
  TrainConfig bsp = point("bsp", "allreduce:ring", 4);
  bsp.momentum = 0;
  bsp.weightDecay = 0;
  TrainConfig local = bsp;
  local.sync = "local:1";
  const std::vector<float> a = finalParameters(bsp, data_, 4);
  const std::vector<float> b = finalParameters(local, data_, 4);
  EXPECT_LT(testing::maxRelativeDifference(b, a), 1e-5);
  // And local:3 is not.
  local.sync = "local:3";
  EXPECT_GT(testing::maxRelativeDifference(finalParameters(local, data_, 4), a), 1e-4);
}

TEST_F(SyncArch, PostLocalSwitchesExactlyAtT) {
  TrainConfig bsp = point("bsp", "allreduce:ring", 3);
  TrainConfig post = point("post-local:4:100", "allreduce:ring", 3);
  bsp.maxIters = post.maxIters = 4;
  EXPECT_EQ(finalParameters(post, data_, 3), finalParameters(bsp, data_, 3));
  bsp.maxIters = post.maxIters = 5;
  EXPECT_GT(testing::maxRelativeDifference(finalParameters(post, data_, 3),
                                           finalParameters(bsp, data_, 3)),
            1e-6);
}

TrainSummary stragglerRun(const std::string& sync, const std::string& arch) {
  TrainConfig c = point(sync, arch, 4);
  c.maxIters = 20;
  c.epochs = 100;
  c.compute = "fixed:20ms";
  c.stragglers = {"3:4"};
  c.out = testing::makeTempDir("straggler-" + sync.substr(0, 3));
  c.cluster = "sim:10Gbps,25us";
  c.trainSamples = 2048;
  c.testSamples = 256;
  return runTraining(c);
}

TEST(SyncArchStraggler, SspBoundsStalenessAndAspOutrunsBsp) {
  at::set_num_threads(1);
  // runTraining loads data by name: synthetic, seeded.
  const TrainSummary bsp = stragglerRun("bsp", "ps");
  const TrainSummary ssp = stragglerRun("ssp:2", "ps");
  const TrainSummary asp = stragglerRun("asp", "ps");
  ASSERT_FALSE(ssp.stalenessHistogram.empty());
  EXPECT_LE(ssp.stalenessHistogram.rbegin()->first, 2);
  EXPECT_GT(ssp.stalenessHistogram.rbegin()->first, 0);
  EXPECT_GT(asp.stalenessHistogram.rbegin()->first, 2);  // the bound is what stops it
  EXPECT_GE(asp.iterations, bsp.iterations);
  EXPECT_LT(asp.trainTime, bsp.trainTime);
  EXPECT_LT(ssp.trainTime, bsp.trainTime);
  EXPECT_EQ(bsp.roles.size(), 5u);
  EXPECT_EQ(bsp.roles.back(), "server");
}

}  // namespace
}  // namespace tetrad::train
