// BSP equivalence on the SimGrid engine: N ranks with per-rank batch b and no
// compression end with the parameters of a plain single-process LibTorch
// loop with batch N*b (SGD with momentum and weight decay), up to float
// rounding. (The same check under mpirun: mpi_equivalence_main.cc.)
#include <gtest/gtest.h>

#include "tetrad/launch/launcher.h"
#include "tetrad/train/bench/plain_loop.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

struct Case {
  std::string model;
  int workers;
  int batch;
  std::string algorithm;
};

class BspEquivalence : public ::testing::TestWithParam<Case> {};

TEST_P(BspEquivalence, MatchesSingleProcessLoopWithNTimesTheBatch) {
  const Case& c = GetParam();
  at::set_num_threads(1);
  const int64_t iterations = 6;
  DataSplits data = testing::smallSynthetic(512, 64);
  TrainConfig config = testing::equivalenceConfig(c.model, c.batch, iterations, c.algorithm);
  std::vector<std::vector<float>> parameters(c.workers);
  LaunchOptions options;
  options.cluster = config.cluster;
  options.workers = c.workers;
  launch(options,
         [&](Transport& t) { parameters[t.rank()] = testing::trainRank(config, data, t); });
  PlainLoopResult reference = trainPlainLoop(config, data, c.batch * c.workers, iterations);
  // Float rounding differs between a batch of N*b and N sums of b (an
  // optimized BLAS blocks its sums by batch size). The mlp stays within 1e-4;
  // through the cnn's ReLUs and max-pooling a rounding difference near a tie
  // can route a gradient elsewhere (4e-4 measured with OpenBLAS after 6
  // iterations), so its bound is 1e-3.
  const double tolerance = c.model == "cnn" ? 1e-3 : 1e-4;
  for (int r = 0; r < c.workers; ++r) {
    EXPECT_LT(testing::maxRelativeDifference(parameters[r], reference.parameters), tolerance)
        << "rank " << r;
  }
  // Not trivially equal: training moved the parameters by far more than that.
  TrainConfig untrained = config;
  PlainLoopResult start = trainPlainLoop(untrained, data, c.batch * c.workers, 0);
  EXPECT_GT(testing::maxRelativeDifference(start.parameters, reference.parameters), 10 * tolerance);
}

INSTANTIATE_TEST_SUITE_P(Sim, BspEquivalence,
                         ::testing::Values(Case{"mlp", 2, 16, "ring"}, Case{"cnn", 2, 8, "ring"},
                                           Case{"mlp", 4, 8, "rd"},
                                           Case{"mlp", 3, 8, "rabenseifner"},
                                           Case{"cnn", 4, 4, "tree"},
                                           Case{"mlp", 4, 4, "hierarchical"}),
                         [](const auto& info) {
                           return info.param.model + "_" + std::to_string(info.param.workers) +
                                  "ranks_" + info.param.algorithm;
                         });

}  // namespace
}  // namespace tetrad::train
