// Fashion-MNIST, mlp, one epoch on 4 simulated workers, lr 0.1 with a cosine
// schedule: every sync policy on the parameter server and Local SGD learn.
// Stated bounds: ps x bsp, ssp:2, local:4 and post-local >= 0.80; asp >=
// 0.78; on 8 workers on a ring, D-PSGD >= 0.78, AD-PSGD >= 0.75 and CHOCO
// with topk:0.1 >= 0.75 (average model) (chance is 0.10; measured: ps x bsp 0.852, ssp:2 0.835 — at
// the default constant lr 0.05, ssp:2 ends at 0.794).
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
    ::testing::Values(AccuracyCase{"bsp", "ps:2", 0.80}, AccuracyCase{"ssp:2", "ps:2", 0.80},
                      AccuracyCase{"asp", "ps:colocated", 0.78},
                      AccuracyCase{"local:4", "allreduce:ring", 0.80},
                      AccuracyCase{"post-local:1ep:4", "ps:colocated", 0.80},
                      // Gossip on 8 workers (accuracy of the average model).
                      AccuracyCase{"bsp", "gossip:ring", 0.78, 8},
                      AccuracyCase{"asp", "gossip:ring", 0.75, 8},  // AD-PSGD
                      AccuracyCase{"bsp", "gossip:ring", 0.75, 8, "choco:0.1", "topk:0.1"}),
    [](const auto& info) {
      std::string name = info.param.sync + "_" + info.param.arch +
                         (info.param.gossip == "dpsgd" ? "" : "_" + info.param.gossip);
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

}  // namespace
}  // namespace tetrad::train
