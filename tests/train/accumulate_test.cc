// Gradient accumulation, accum:K (sync/accumulate.h): K micro-batches of b
// samples per step are BSP with a batch of K·b — the same samples, the same
// steps — and a run stopped between two steps resumes with the partial sum
// (checkpoint_test.cc holds the bit-for-bit resume; resize_test.cc the
// resize at a step).
#include <gtest/gtest.h>

#include "tetrad/core/error.h"
#include "tetrad/sync/gradient_accumulator.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

TEST(Accumulate, KMicroBatchesTrainAsBspWithKTimesTheBatch) {
  at::set_num_threads(1);
  const DataSplits data = testing::smallSynthetic(512, 64);
  // 2 workers: 3 steps of 4 micro-batches of 4 samples each, against 3 BSP
  // steps of 16 samples each; both read positions [0, 96) of the epoch.
  TrainConfig config = testing::equivalenceConfig("mlp", 4, 12);
  config.sync = "accum:4";
  const std::vector<float> accumulated = testing::finalParameters(config, data, 2);
  config = testing::equivalenceConfig("mlp", 16, 3);
  const std::vector<float> bsp = testing::finalParameters(config, data, 2);
  ASSERT_FALSE(bsp.empty());
  // A mean of K means against one mean: float rounding only.
  EXPECT_LT(testing::maxRelativeDifference(accumulated, bsp), 1e-5);
  // Not trivially: 12 BSP steps of 4 samples end elsewhere.
  config = testing::equivalenceConfig("mlp", 4, 12);
  EXPECT_GT(testing::maxRelativeDifference(testing::finalParameters(config, data, 2), bsp), 1e-3);
}

TEST(Accumulate, TheLastStepTakesAPartialGroup) {
  at::set_num_threads(1);
  const DataSplits data = testing::smallSynthetic(512, 64);
  // 10 micro-batches of accum:4: steps after 4, 8 and 10 (the last two).
  TrainConfig config = testing::equivalenceConfig("mlp", 4, 10);
  config.sync = "accum:4";
  const std::vector<float> accumulated = testing::finalParameters(config, data, 2);
  config.maxIters = 8;
  const std::vector<float> eight = testing::finalParameters(config, data, 2);
  EXPECT_GT(testing::maxRelativeDifference(accumulated, eight), 1e-4)
      << "the two micro-batches after the last full group were not stepped";
}

TEST(Accumulate, SchedulesStepsAndDeclaresItsTraits) {
  const SyncPolicyPtr policy = makeSyncPolicy("accum:3", {100, 7, {}});
  EXPECT_EQ(policy->spec(), "accum:3");
  std::string pattern;
  for (int64_t i = 0; i < 7; ++i) {
    const SyncPoint point = policy->at(i);
    EXPECT_EQ(point.reduceGradients, point.step) << "iteration " << i;
    EXPECT_FALSE(point.averageModels);
    pattern += point.step ? 'S' : '.';
  }
  EXPECT_EQ(pattern, "..S..SS");  // the last iteration steps on what it has
  EXPECT_EQ(policy->microBatchesPerStep(), 3);
  EXPECT_EQ(policy->averagingPeriod(), 3);
  EXPECT_FALSE(policy->averagesModels());
  EXPECT_EQ(policy->mode(), SyncMode::kCollective);
  EXPECT_THROW(makeSyncPolicy("accum"), InvalidArgument);
  EXPECT_THROW(makeSyncPolicy("accum:0"), InvalidArgument);
  EXPECT_THROW(makeSyncPolicy("accum:2:3"), InvalidArgument);
}

TEST(Accumulate, OverlappedSchedulesAreRefused) {
  TrainConfig config = testing::equivalenceConfig("mlp", 4, 4);
  config.sync = "accum:2";
  config.sched = "wfbp";
  try {
    resolveConfig(config);
    FAIL() << "accum:2 with --sched wfbp was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("does not exchange gradients in every backward pass"),
              std::string::npos)
        << e.what();
  }
}

// A resize starts at a step: each worker's partial sum is of the old split.
// A checkpoint taken between two steps resumes on the same count (bit for
// bit, checkpoint_test.cc) and is refused, with one line, on another.
TEST(Accumulate, AResizeBetweenTwoStepsIsRefusedNamingTheRule) {
  at::set_num_threads(1);
  const DataSplits data = testing::smallSynthetic(512, 64);
  TrainConfig config = testing::equivalenceConfig("mlp", 8, 12);
  config.sync = "accum:3";
  config.workers = 2;
  config.checkpointEvery = 4;
  config.compute = "fixed:5ms";
  config.out = testing::makeTempDir("accumulate-resize");
  setenv("TETRAD_TEST_STOP_AT", "5", 1);
  const testing::Outcome stopped = testing::runInFolder(config, data, 2);
  unsetenv("TETRAD_TEST_STOP_AT");
  ASSERT_EQ(stopped.status, "interrupted");  // at the checkpoint of iteration 8: 2 pending
  config.resume = config.out;
  config.workers = 3;
  try {
    testing::runInFolder(config, data, 3);
    FAIL() << "a resize between two steps of accum:3 was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("lies between two steps of --sync accum:3"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--checkpoint-every a multiple of 3"), std::string::npos)
        << e.what();
  }
}

TEST(GradientAccumulator, FoldsTheMeanAndRoundTripsItsState) {
  GradientAccumulator accumulator;
  std::vector<float> a = {1, 2, 3}, b = {3, 4, 5}, c = {5, 6, 7};
  accumulator.foldInto(c);  // nothing pending: unchanged
  EXPECT_EQ(c, (std::vector<float>{5, 6, 7}));
  accumulator.add(a);
  accumulator.add(b);
  EXPECT_EQ(accumulator.pending(), 2);
  ByteBuffer bytes;
  ByteWriter out(bytes);
  accumulator.save(out);
  GradientAccumulator restored;
  ByteReader in(bytes);
  restored.load(in);
  EXPECT_EQ(in.remaining(), 0u);
  restored.foldInto(c);
  EXPECT_EQ(c, (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(restored.pending(), 0);
  std::vector<float> shorter = {1, 2};
  EXPECT_THROW(accumulator.foldInto(shorter), InvalidArgument);
  // Damaged bytes: a count without values, and a size past the end.
  for (const auto& [count, floats] : {std::pair<int64_t, uint64_t>{2, 0}, {1, 1ull << 62}}) {
    ByteBuffer damaged;
    ByteWriter writer(damaged);
    writer.put<int64_t>(count);
    writer.put<uint64_t>(floats);
    ByteReader reader(damaged);
    GradientAccumulator target;
    EXPECT_THROW(target.load(reader), ProtocolError) << count << " " << floats;
  }
}

}  // namespace
}  // namespace tetrad::train
