// Fashion-MNIST, mlp, a quarter of an epoch (the first 15,000 training
// samples: the test checks that each policy learns, not how well one full
// epoch does) on 4 simulated workers, lr 0.1 with a cosine schedule: every
// sync policy on the parameter server and Local SGD learns to >= 0.70 on the
// whole test set, and so do D-PSGD, AD-PSGD and CHOCO with topk:0.1 on 8
// workers on a ring (accuracy of the average model). Chance is 0.10;
// measured: ps x bsp 0.765, ssp:2 0.737, asp 0.744, local:4 0.774,
// post-local 0.765, D-PSGD 0.745, AD-PSGD 0.738, CHOCO 0.737 (one full
// epoch reached 0.78-0.85 at ~2.5x the test's time).
#include <gtest/gtest.h>

#include <filesystem>

#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

struct AccuracyCase {
  std::string sync, arch;
  double bound;
  int workers = 4;
  std::string gossip = "dpsgd", compress = "none";
};

class SyncAccuracy : public ::testing::TestWithParam<AccuracyCase> {};

TEST_P(SyncAccuracy, MlpLearnsFashionMnistInOneEpoch) {
  if (!std::filesystem::exists(defaultDataDir("fashion-mnist") + "/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  }
  const AccuracyCase& a = GetParam();
  TrainConfig c;
  c.model = "mlp";
  c.data = "fashion-mnist";
  c.workers = a.workers;
  c.gossip = a.gossip;
  c.compress = a.compress;
  c.epochs = 1;
  c.trainSamples = 15000;
  c.sync = a.sync;
  c.arch = a.arch;
  c.compute = "fixed:5ms";
  c.lr = 0.1;
  c.lrSchedule = "cosine";
  c.quiet = true;
  c.out = testing::makeTempDir("accuracy-" + a.sync.substr(0, 4) + a.arch.substr(0, 3) +
                               a.gossip.substr(0, 2));
  const TrainSummary s = runTraining(c);
  EXPECT_GE(s.finalAccuracy, a.bound) << a.sync << " " << a.arch;
  EXPECT_GE(s.epochs, 1.0);
}

INSTANTIATE_TEST_SUITE_P(
    FashionMnist, SyncAccuracy,
    ::testing::Values(AccuracyCase{"bsp", "ps:2", 0.70}, AccuracyCase{"ssp:2", "ps:2", 0.70},
                      AccuracyCase{"asp", "ps:colocated", 0.70},
                      AccuracyCase{"local:4", "allreduce:ring", 0.70},
                      AccuracyCase{"post-local:1ep:4", "ps:colocated", 0.70},
                      // Gossip on 8 workers (accuracy of the average model).
                      AccuracyCase{"bsp", "gossip:ring", 0.70, 8},
                      AccuracyCase{"asp", "gossip:ring", 0.70, 8},  // AD-PSGD
                      AccuracyCase{"bsp", "gossip:ring", 0.70, 8, "choco:0.1", "topk:0.1"}),
    [](const auto& info) {
      std::string name = info.param.sync + "_" + info.param.arch +
                         (info.param.gossip == "dpsgd" ? "" : "_" + info.param.gossip);
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

}  // namespace
}  // namespace tetrad::train
