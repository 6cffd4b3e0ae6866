// Decentralized training in the worker loop, on the SimGrid engine: D-PSGD
// on the complete graph with uniform weights is model averaging after every
// step (local:1 on all-reduce), CHOCO with `none` and γ = 1 is D-PSGD, Local
// SGD over gossip mixes every H steps, and a neighbour that dies is named.
// AD-PSGD (asp on gossip): under a 4x straggler it does the same work in
// less simulated time than D-PSGD; it runs on odd worker counts with a
// straggler, accounts every step in its staleness histogram and is
// reproducible under a fixed compute model.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

std::vector<float> finalParameters(const TrainConfig& config, const DataSplits& data) {
  return testing::finalParameters(config, data, config.workers);
}

TrainConfig point(const std::string& sync, const std::string& arch, int workers) {
  TrainConfig c = testing::equivalenceConfig("mlp", 8, 6);
  c.sync = sync;
  c.arch = arch;
  c.workers = workers;
  return c;
}

class GossipTrain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
  DataSplits data_ = testing::smallSynthetic(512, 64);
};

TEST_F(GossipTrain, CompleteGraphDpsgdIsModelAveragingEveryStep) {
  const auto dpsgd = finalParameters(point("bsp", "gossip:complete", 4), data_);
  const auto averaging = finalParameters(point("local:1", "allreduce:ring", 4), data_);
  EXPECT_LT(testing::maxRelativeDifference(dpsgd, averaging), 1e-5);
  // On a ring the models do not agree after every step: a different run.
  const auto ring = finalParameters(point("bsp", "gossip:ring", 4), data_);
  EXPECT_GT(testing::maxRelativeDifference(ring, averaging), 1e-6);
}

TEST_F(GossipTrain, ChocoWithoutCompressionAndGammaOneIsDpsgd) {
  TrainConfig choco = point("bsp", "gossip:ring", 5);
  choco.gossip = "choco:1";
  const auto a = finalParameters(choco, data_);
  const auto b = finalParameters(point("bsp", "gossip:ring", 5), data_);
  EXPECT_LT(testing::maxRelativeDifference(a, b), 1e-5);
}

TEST(GossipTrainRun, LocalSgdOverGossipMixesEveryHSteps) {
  at::set_num_threads(1);
  auto run = [](const std::string& sync) {
    TrainConfig c = point(sync, "gossip:ring", 4);
    c.maxIters = 8;
    c.trainSamples = 4096;
    c.testSamples = 128;
    c.out = testing::makeTempDir("gossip-" + sync.substr(0, 5));
    return runTraining(c);
  };
  const TrainSummary every = run("bsp"), local = run("local:4");
  ASSERT_EQ(every.iterations, 8);
  ASSERT_EQ(local.iterations, 8);
  // 8 mixes against 2: a quarter of the bytes (ring: 2 neighbours a step).
  EXPECT_NEAR(double(local.bytesSent[0]) / double(every.bytesSent[0]), 0.25, 0.01);
  EXPECT_GT(every.consensusDistance, 0);
  EXPECT_GE(every.finalOwnAccuracy, 0);
  // metrics.jsonl carries the consensus distance and rank 0's own accuracy.
  std::ifstream metrics(every.folder + "/metrics.jsonl");
  bool consensus = false, own = false;
  for (std::string line; std::getline(metrics, line);) {
    auto j = nlohmann::json::parse(line);
    consensus = consensus || j.contains("consensus_distance");
    own = own || j.contains("rank0_accuracy");
  }
  EXPECT_TRUE(consensus);
  EXPECT_TRUE(own);
}

TrainSummary runQuick(TrainConfig c, const std::string& name) {
  c.trainSamples = 4096;
  c.testSamples = 128;
  c.out = testing::makeTempDir(name);
  return runTraining(c);
}

int64_t histogramTotal(const TrainSummary& s) {
  int64_t total = 0;
  for (const auto& [staleness, count] : s.stalenessHistogram) total += count;
  return total;
}

TEST(GossipTrainRun, AdpsgdDoesTheWorkSoonerThanDpsgdUnderAStraggler) {
  at::set_num_threads(1);
  auto run = [](const std::string& sync) {
    TrainConfig c = point(sync, "gossip:ring", 8);
    c.maxIters = 16;
    c.compute = "fixed:20ms";
    c.stragglers = {"0:4"};
    return runQuick(c, "straggler-" + sync);
  };
  const TrainSummary dpsgd = run("bsp"), adpsgd = run("asp");
  ASSERT_EQ(dpsgd.iterations, 16);
  ASSERT_EQ(adpsgd.iterations, 16);
  EXPECT_GE(adpsgd.updatesApplied, 16 * 8);
  // D-PSGD waits for the straggler every step (16 x 80 ms); AD-PSGD's seven
  // fast workers do most of the 128 steps (about 128 / (7/20 + 1/80) ms).
  EXPECT_GT(dpsgd.trainTime, 16 * 0.080);
  EXPECT_LT(adpsgd.trainTime, 0.5 * dpsgd.trainTime)
      << "AD-PSGD " << adpsgd.trainTime << " s, D-PSGD " << dpsgd.trainTime << " s";
  EXPECT_EQ(histogramTotal(adpsgd), adpsgd.updatesApplied);  // one averaging per step
  EXPECT_GT(adpsgd.stalenessHistogram.rbegin()->first, 8);   // the straggler's model is old
  EXPECT_GE(adpsgd.consensusDistance, 0);
  EXPECT_GE(adpsgd.finalOwnAccuracy, 0);
  // The last eval line: the average model, with the consensus distance.
  std::ifstream metrics(adpsgd.folder + "/metrics.jsonl");
  nlohmann::json last;
  for (std::string line; std::getline(metrics, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.value("kind", "") == "eval") last = j;
  }
  ASSERT_FALSE(last.is_null());
  EXPECT_TRUE(last.contains("consensus_distance")) << last.dump();
  EXPECT_EQ(last.value("iteration", -1), 16) << last.dump();
}

TEST(GossipTrainRun, AdpsgdRunsOnOddWorkerCountsWithAStraggler) {
  at::set_num_threads(1);
  for (int workers : {3, 5, 7}) {
    SCOPED_TRACE(workers);
    TrainConfig c = point("asp", "gossip:ring", workers);
    c.maxIters = 6;
    c.compute = "fixed:5ms";
    c.stragglers = {"1:3"};
    const TrainSummary s = runQuick(c, "adpsgd-odd");
    EXPECT_EQ(s.iterations, 6);
    EXPECT_GE(s.updatesApplied, 6 * workers);
    EXPECT_LT(s.updatesApplied, 7 * workers);
    EXPECT_EQ(histogramTotal(s), s.updatesApplied);
    EXPECT_GT(s.finalAccuracy, 0);
  }
}

TEST_F(GossipTrain, AdpsgdIsReproducibleUnderAFixedComputeModel) {
  TrainConfig c = point("asp", "gossip:ring", 5);
  c.compute = "fixed:5ms";
  c.stragglers = {"2:2"};
  const auto a = finalParameters(c, data_);
  const auto b = finalParameters(c, data_);
  EXPECT_EQ(a, b);
  c.seed = 12;  // other partners (and data order)
  EXPECT_NE(finalParameters(c, data_), a);
}

TEST(GossipTrainRun, DeadNeighbourIsNamed) {
  at::set_num_threads(1);
  DataSplits data = testing::smallSynthetic(512, 64);
  TrainConfig c = point("bsp", "gossip:ring", 4);
  std::string error;
  LaunchOptions options;
  options.cluster = c.cluster;
  options.workers = 4;
  options.timeoutSeconds = 2;
  EXPECT_THROW(launch(options,
                      [&](Transport& t) {
                        if (t.rank() == 2) return;  // dies before training
                        try {
                          testing::trainRank(c, data, t);
                        } catch (const Error& e) {
                          if (t.rank() == 1 || t.rank() == 3) error += e.what();
                          throw;
                        }
                      }),
               Error);
  EXPECT_NE(error.find("rank 2"), std::string::npos) << error;
}

}  // namespace
}  // namespace tetrad::train
