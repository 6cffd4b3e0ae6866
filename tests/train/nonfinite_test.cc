// The non-finite guard (train/loop/nonfinite_guard.h) and the collective checks in
// a full training run, on the SimGrid engine: a NaN injected into one
// worker's gradient stops every worker at that iteration with the same error
// naming rank, iteration and tensor; with skip every worker skips the same
// step and the replicas stay identical; a BSP run with --check-collectives
// finishes (no false positive) with the same parameters as without.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <mutex>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/loop/nonfinite_guard.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/transport/diagnostics.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

struct RankOutcome {
  RankResult result;
  std::vector<float> parameters;
  uint64_t messagesSent = 0;  // the whole run, set-up and evaluation included
};

std::vector<RankOutcome> trainAll(const TrainConfig& config, int workers,
                                  bool checkCollectives = false, ComputePool* pool = nullptr) {
  const ResolvedConfig resolved = resolveConfig(config);
  const DataSplits data = testing::smallSynthetic(512, 64);
  std::vector<RankOutcome> outcomes(static_cast<size_t>(workers));
  LaunchOptions options;
  options.cluster = config.cluster;
  options.workers = worldSizeFor(resolved, workers);
  options.timeoutSeconds = 60;
  launch(options, [&](Transport& t) {
    t.diagnostics().setCheckCollectives(checkCollectives);
    RankTrainer trainer(resolved, data, t, nullptr, pool);
    RankResult result = trainer.run(/*keepParameters=*/true);
    outcomes[size_t(t.rank())].parameters = result.parameters;
    outcomes[size_t(t.rank())].messagesSent = t.traffic().totalMessagesSent();
    outcomes[size_t(t.rank())].result = std::move(result);
  });
  return outcomes;
}

TrainConfig smallConfig(const std::string& sync = "bsp") {
  TrainConfig c = testing::equivalenceConfig("mlp", 16, 8);
  c.sync = sync;
  return c;
}

TEST(NonFiniteCode, NamesTheFirstTensorAndTheKind) {
  std::vector<ParameterSlot> slots = {{"a", 2, {2}}, {"b", 3, {3}}};
  std::vector<float> g(5, 1.0f);
  EXPECT_EQ(nonFiniteCode(0.5, g, slots), 0u);
  EXPECT_EQ(nonFiniteCode(NAN, g, slots), 1u);       // loss, NaN
  EXPECT_EQ(nonFiniteCode(INFINITY, g, slots), 2u);  // loss, Inf
  g[3] = -INFINITY;
  EXPECT_EQ(nonFiniteCode(0.5, g, slots), 1u + 2 * 2 + 1);  // slot b, Inf
  g[0] = NAN;
  EXPECT_EQ(nonFiniteCode(0.5, g, slots), 1u + 2 * 1);  // slot a, NaN
  g[0] = 3e38f;
  g[3] = 1.0f;
  EXPECT_EQ(nonFiniteCode(0.5, g, slots), 0u);  // large but finite
}

TEST(NonFiniteGuard, StopsEveryWorkerNamingRankIterationAndTensor) {
  const ScopedEnv hook("TETRAD_TEST_NONFINITE", "2:5");
  const std::vector<RankOutcome> outcomes = trainAll(smallConfig(), 4);
  for (size_t r = 0; r < outcomes.size(); ++r) {
    const RankResult& result = outcomes[r].result;
    EXPECT_EQ(result.status, RunStatus::kDiverged) << "rank " << r;
    EXPECT_EQ(result.error,
              "non-finite gradient (NaN) on rank 2 at iteration 5 in tensor fc1.weight: stopped on "
              "every rank (--on-nonfinite stop)")
        << "rank " << r;
    EXPECT_EQ(result.iterations, 4) << "rank " << r;  // 4 steps done, the 5th stopped
    for (float v : outcomes[r].parameters) ASSERT_TRUE(std::isfinite(v)) << "rank " << r;
    EXPECT_EQ(outcomes[r].parameters, outcomes[0].parameters) << "rank " << r;
  }
}

// stop's word rides on the exchange for summable and gather compressors too
// (compress/guard_rider.h): the same stop, naming rank, iteration, tensor.
TEST(NonFiniteGuard, StopRidesOnSummableAndGatherExchanges) {
  const ScopedEnv hook("TETRAD_TEST_NONFINITE", "1:3:inf");
  for (const char* compress : {"fp16", "topk:0.1,ef", "qsgd:16"}) {
    TrainConfig c = smallConfig();
    c.compress = compress;
    const std::vector<RankOutcome> outcomes = trainAll(c, 3);
    for (size_t r = 0; r < outcomes.size(); ++r) {
      const RankResult& result = outcomes[r].result;
      EXPECT_EQ(result.status, RunStatus::kDiverged) << compress << " rank " << r;
      EXPECT_EQ(result.error,
                "non-finite gradient (Inf) on rank 1 at iteration 3 in tensor fc1.weight: stopped "
                "on every rank (--on-nonfinite stop)")
          << compress << " rank " << r;
      EXPECT_EQ(result.iterations, 2) << compress;
      for (float v : outcomes[r].parameters) ASSERT_TRUE(std::isfinite(v)) << compress;
    }
  }
}

// A finite run with stop sends exactly the messages of the same run without
// the guard where the word rides (one float more in one bucket, or a header
// field); where it cannot ride (PowerSGD's protocol), the guard's own round
// adds messages.
TEST(NonFiniteGuard, StopSendsNoMessageOfItsOwnWhereItRides) {
  for (const char* compress : {"none", "fp16", "topk:0.1,ef", "powersgd:1"}) {
    TrainConfig c = smallConfig();
    c.compress = compress;
    c.maxIters = 5;
    c.onNonFinite = "off";
    const std::vector<RankOutcome> off = trainAll(c, 3);
    c.onNonFinite = "stop";
    const std::vector<RankOutcome> stop = trainAll(c, 3);
    ASSERT_EQ(off.size(), stop.size());
    for (size_t r = 0; r < off.size(); ++r) {
      const uint64_t a = off[r].messagesSent, b = stop[r].messagesSent;
      if (std::string(compress) == "powersgd:1") {
        EXPECT_GT(b, a) << compress << " rank " << r;
      } else {
        EXPECT_EQ(b, a) << compress << " rank " << r;
        EXPECT_LE(stop[0].result.ranks[r].bytesSent, off[0].result.ranks[r].bytesSent + 256)
            << compress << " rank " << r;
      }
    }
    EXPECT_EQ(stop[0].parameters, off[0].parameters) << compress;
  }
}

TEST(NonFiniteGuard, StopEveryKItersChecksOnlyThen) {
  const ScopedEnv hook("TETRAD_TEST_NONFINITE", "0:5");
  TrainConfig c = smallConfig("local:2");
  c.onNonFinite = "stop:3";
  const std::vector<RankOutcome> outcomes = trainAll(c, 2);
  // Local SGD's steps carry no gradient exchange: the guard's own round runs
  // at iterations 3 and 6 only; the NaN of iteration 5 is seen at 6.
  for (const RankOutcome& o : outcomes) {
    EXPECT_EQ(o.result.status, RunStatus::kDiverged);
    EXPECT_NE(o.result.error.find("on rank 0 at iteration 6"), std::string::npos) << o.result.error;
  }
  c.onNonFinite = "stop:0";
  EXPECT_THROW(resolveConfig(c), InvalidArgument);
}

TEST(NonFiniteGuard, SkipsTheSameStepOnEveryWorker) {
  const ScopedEnv hook("TETRAD_TEST_NONFINITE", "1:3:inf");
  TrainConfig c = smallConfig();
  c.onNonFinite = "skip";
  const std::vector<RankOutcome> outcomes = trainAll(c, 3);
  for (size_t r = 0; r < outcomes.size(); ++r) {
    const RankResult& result = outcomes[r].result;
    EXPECT_EQ(result.status, RunStatus::kFinished) << "rank " << r;
    EXPECT_EQ(result.skippedSteps, 1) << "rank " << r;
    EXPECT_EQ(result.iterations, 8) << "rank " << r;
    for (float v : outcomes[r].parameters) ASSERT_TRUE(std::isfinite(v)) << "rank " << r;
    EXPECT_EQ(outcomes[r].parameters, outcomes[0].parameters) << "rank " << r;
  }
  // The skipped step changed the run: it differs from one without a skip.
  const std::vector<RankOutcome> clean = [&] {
    unsetenv("TETRAD_TEST_NONFINITE");
    return trainAll(c, 3);
  }();
  EXPECT_EQ(clean[0].result.skippedSteps, 0);
  EXPECT_NE(clean[0].parameters, outcomes[0].parameters);
}

TEST(NonFiniteGuard, LocalSgdSkipsConsistently) {
  const ScopedEnv hook("TETRAD_TEST_NONFINITE", "0:4");
  TrainConfig c = smallConfig("local:2");
  c.onNonFinite = "skip";
  const std::vector<RankOutcome> outcomes = trainAll(c, 2);
  EXPECT_EQ(outcomes[0].result.skippedSteps, 1);
  EXPECT_EQ(outcomes[1].result.skippedSteps, 1);
  EXPECT_EQ(outcomes[0].parameters, outcomes[1].parameters);  // averaged at step 8
}

TEST(NonFiniteGuard, HugeLearningRateDivergesAndStops) {
  TrainConfig c = smallConfig();
  c.lr = 500;
  const std::vector<RankOutcome> outcomes = trainAll(c, 2);
  for (const RankOutcome& o : outcomes) {
    EXPECT_EQ(o.result.status, RunStatus::kDiverged);
    EXPECT_NE(o.result.error.find("non-finite"), std::string::npos) << o.result.error;
    EXPECT_EQ(o.result.error, outcomes[0].result.error);
    EXPECT_LT(o.result.iterations, 8);
  }
}

// Simulated ranks whose passes run on the compute pool: the pool thread
// scans the values right after the pass (rank_trainer_loops.cc), and the
// guard finds what it finds inline — a real divergence and the test hook's
// value, which is written after that scan.
TEST(NonFiniteGuard, SameFindingsWithPassesOnThePool) {
  ComputePool pool(2);
  TrainConfig diverging = smallConfig();
  diverging.lr = 500;
  const std::vector<RankOutcome> inlineRun = trainAll(diverging, 2);
  const std::vector<RankOutcome> pooled = trainAll(diverging, 2, false, &pool);
  ASSERT_EQ(pooled[0].result.status, RunStatus::kDiverged);
  EXPECT_GT(pool.submitted(), 0);
  for (size_t r = 0; r < pooled.size(); ++r) {
    EXPECT_EQ(pooled[r].result.error, inlineRun[r].result.error) << "rank " << r;
    EXPECT_EQ(pooled[r].result.iterations, inlineRun[r].result.iterations) << "rank " << r;
  }
  const ScopedEnv hook("TETRAD_TEST_NONFINITE", "1:3");
  const std::vector<RankOutcome> injected = trainAll(smallConfig(), 2, false, &pool);
  EXPECT_EQ(injected[0].result.error,
            "non-finite gradient (NaN) on rank 1 at iteration 3 in tensor fc1.weight: stopped on "
            "every rank (--on-nonfinite stop)");
}

TEST(NonFiniteGuard, SkipIsRefusedUnderPushPull) {
  TrainConfig c = smallConfig("asp");
  c.arch = "ps";
  c.onNonFinite = "skip";
  EXPECT_THROW(resolveConfig(c), Unsupported);
  c.onNonFinite = "later";
  EXPECT_THROW(resolveConfig(c), InvalidArgument);
}

TEST(CheckCollectives, FullBspRunHasNoFalsePositive) {
  for (const std::string compress : {"none", "topk:0.1,ef", "powersgd:2"}) {
    TrainConfig c = smallConfig();
    c.compress = compress;
    const std::vector<RankOutcome> checked = trainAll(c, 3, /*checkCollectives=*/true);
    const std::vector<RankOutcome> plain = trainAll(c, 3, /*checkCollectives=*/false);
    EXPECT_EQ(checked[0].result.status, RunStatus::kFinished) << compress;
    EXPECT_EQ(checked[0].parameters, plain[0].parameters) << compress;
    EXPECT_EQ(checked[2].parameters, plain[2].parameters) << compress;
  }
}

}  // namespace
}  // namespace tetrad::train
