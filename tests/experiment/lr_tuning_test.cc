// Learning-rate tuning (src/tetrad/experiment/lr_tuning.h): reading tune_lr,
// tune_budget and tune_metric with one-line errors, planning the tuning runs
// (first cluster, first seed, the grid's lr, max_iters from the budget), the
// pick rule, and the runs that use the pick.
#include "tetrad/experiment/lr_tuning.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "tetrad/core/error.h"
#include "tetrad/experiment/sweep_file.h"

namespace tetrad::experiment {
namespace {

constexpr const char* kSweep = R"([workload]
model = "mlp"
lr = 0.05
max_iters = 40
seeds = [7, 8]
tune_budget = 0.3
tune_metric = "train_loss"

[[cluster]]
label = "slow"
spec = "sim:1Gbps,50us"
workers = 4

[[cluster]]
label = "fast"
spec = "sim:10Gbps,25us"
workers = 4

[[method]]
label = "plain"

[[method]]
label = "sign"
compress = "sign"
tune_lr = [1e-3, 1e-4]
)";

std::string errorOf(const std::string& text) {
  try {
    parseSweepText(text, "t.toml");
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

std::string valueOf(const std::vector<std::string>& args, const std::string& flag) {
  auto it = std::find(args.begin(), args.end(), flag);
  return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

// Stands in for train's rule: max_iters, or 100 iterations.
int64_t fakeLength(const std::vector<std::string>& args) {
  const std::string maxIters = valueOf(args, "--max-iters");
  return maxIters.empty() ? 100 : std::stoll(maxIters);
}

TEST(LrTuning, ReadsGridBudgetAndMetric) {
  const SweepSpec spec = parseSweepText(kSweep, "t.toml");
  EXPECT_DOUBLE_EQ(spec.tuneBudget, 0.3);
  EXPECT_EQ(spec.tuneMetric, TuneMetric::kTrainLoss);
  EXPECT_TRUE(spec.methods[0].tuneLr.empty());
  EXPECT_EQ(spec.methods[1].tuneLr, (std::vector<std::string>{"0.001", "0.0001"}));
  EXPECT_EQ(spec.methods[1].tuneLrWhere.toString(), "t.toml:25:1");
  // Defaults.
  const SweepSpec plain = parseSweepText(
      "[[cluster]]\nlabel = \"c\"\nspec = \"sim:10Gbps,25us\"\n[[method]]\nlabel = \"m\"\n", "d");
  EXPECT_DOUBLE_EQ(plain.tuneBudget, 0.25);
  EXPECT_EQ(plain.tuneMetric, TuneMetric::kTestAccuracy);
}

TEST(LrTuning, BadValuesNameKeyFileAndLine) {
  const std::string cluster = "\n[[cluster]]\nlabel = \"c\"\nspec = \"sim:10Gbps,25us\"\n";
  const std::string method = "\n[[method]]\nlabel = \"m\"\n";
  EXPECT_NE(errorOf(cluster + method + "tune_lr = []\n")
                .find("t.toml:8:11: key 'tune_lr' in [[method]] 'm': the grid of learning rates "
                      "is empty"),
            std::string::npos)
      << errorOf(cluster + method + "tune_lr = []\n");
  EXPECT_NE(errorOf(cluster + method + "tune_lr = [0.1, -0.5]\n")
                .find("t.toml:8:17: key 'tune_lr' in [[method]] 'm': learning rate -0.5 is not a "
                      "positive number"),
            std::string::npos);
  EXPECT_NE(errorOf(cluster + method + "tune_lr = [0.1, 0]\n").find("learning rate 0 is not"),
            std::string::npos);
  EXPECT_NE(errorOf(cluster + method + "tune_lr = [0.1, \"big\"]\n")
                .find("t.toml:8:17: key 'tune_lr' in [[method]] 'm': must be an array of positive "
                      "numbers, not a string"),
            std::string::npos);
  EXPECT_NE(errorOf(cluster + method + "tune_lr = 0.1\n").find("must be an array"),
            std::string::npos);
  EXPECT_NE(errorOf(cluster + method + "tune_lr = [0.1, 1e-1]\n").find("0.1 is listed twice"),
            std::string::npos);
  EXPECT_NE(errorOf("[workload]\ntune_budget = 1\n" + cluster + method)
                .find("t.toml:2:15: key 'tune_budget' in [workload]: 1 is outside (0, 1)"),
            std::string::npos);
  EXPECT_NE(errorOf("[workload]\ntune_budget = 0\n" + cluster + method).find("0 is outside (0, 1)"),
            std::string::npos);
  EXPECT_NE(errorOf("[workload]\ntune_budget = \"a\"\n" + cluster + method)
                .find("key 'tune_budget' in [workload]: must be a number in (0, 1), not a string"),
            std::string::npos);
  EXPECT_NE(errorOf("[workload]\ntune_metric = \"accuracy\"\n" + cluster + method)
                .find("t.toml:2:15: key 'tune_metric' in [workload]: unknown metric 'accuracy' "
                      "(known: test_accuracy, train_loss)"),
            std::string::npos);
  // tune_lr belongs to methods, tune_budget to [workload].
  EXPECT_NE(errorOf("[workload]\ntune_lr = [0.1]\n" + cluster + method)
                .find("unknown key 'tune_lr' in [workload]"),
            std::string::npos);
  EXPECT_NE(errorOf(cluster + method + "tune_budget = 0.5\n")
                .find("unknown key 'tune_budget' in [[method]] 'm'"),
            std::string::npos);
}

TEST(LrTuning, PlansTheGridOnTheFirstClusterAndSeed) {
  const SweepSpec spec = parseSweepText(kSweep, "t.toml");
  // --only fast: tuning still runs on the file's first cluster.
  const std::vector<TuningPlan> plans = planTuning(spec, {"fast"}, fakeLength);
  ASSERT_EQ(plans.size(), 1u);
  const TuningPlan& plan = plans[0];
  EXPECT_EQ(plan.method, "sign");
  EXPECT_EQ(plan.fullIterations, 40);
  EXPECT_EQ(plan.budgetIterations, 12);  // ceil(0.3 x 40)
  ASSERT_EQ(plan.runs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const RunPlan& run = plan.runs[i];
    EXPECT_EQ(run.phase, "tuning");
    EXPECT_EQ(run.tuneMetric, "train_loss");
    EXPECT_EQ(run.clusterLabel, "slow");
    EXPECT_EQ(run.seed, 7u);
    EXPECT_EQ(valueOf(run.trainArgs(), "--lr"), plan.grid[i]);
    EXPECT_EQ(valueOf(run.trainArgs(), "--max-iters"), "12");
    EXPECT_EQ(valueOf(run.trainArgs(), "--compress"), "sign");
  }
  EXPECT_EQ(plan.runs[0].name.substr(0, 20), "sign-lr0.001-slow-s7");
  EXPECT_NE(plan.runs[0].hash, plan.runs[1].hash);
  // Only the untuned method selected: nothing to tune.
  EXPECT_TRUE(planTuning(spec, {"plain"}, fakeLength).empty());
}

TEST(LrTuning, TimingOnlyMethodsCannotBeTuned) {
  std::string text = kSweep;
  text += "timing_only = true\n";
  try {
    planTuning(parseSweepText(text, "t.toml"), {}, fakeLength);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("t.toml:25:1: key 'tune_lr' in [[method]] 'sign': a "
                                         "timing-only run has no accuracy"),
              std::string::npos)
        << e.what();
  }
}

TuningPoint point(const std::string& lr, double metric) {
  TuningPoint p;
  p.lr = lr;
  p.status = std::isnan(metric) ? "diverged" : "ok";
  p.metric = metric;
  return p;
}

TEST(LrTuning, PicksTheBestMetricAndTheLargerRateOnTies) {
  using enum TuneMetric;
  EXPECT_EQ(pickRate({point("0.1", 0.80), point("1e-06", 0.10)}, kTestAccuracy), "0.1");
  EXPECT_EQ(pickRate({point("0.1", 0.80), point("0.01", 0.85)}, kTestAccuracy), "0.01");
  EXPECT_EQ(pickRate({point("0.01", 0.80), point("0.1", 0.80), point("0.05", 0.80)}, kTestAccuracy),
            "0.1");
  // Loss: lower wins; a diverged point never does.
  EXPECT_EQ(pickRate({point("0.1", 0.3), point("0.01", 0.2)}, kTrainLoss), "0.01");
  EXPECT_EQ(pickRate({point("1", kMissing), point("0.01", 2.2)}, kTrainLoss), "0.01");
  EXPECT_EQ(pickRate({point("1", kMissing)}, kTestAccuracy), "");
}

TEST(LrTuning, TheFullRunsUseThePick) {
  const SweepSpec spec = parseSweepText(kSweep, "t.toml");
  const std::vector<RunPlan> untuned = planRuns(spec);
  const std::vector<RunPlan> runs = planRuns(spec, {}, {{"sign", "0.0001"}});
  ASSERT_EQ(runs.size(), 8u);  // 2 clusters x 2 methods x 2 seeds
  for (size_t i = 0; i < runs.size(); ++i) {
    const bool sign = runs[i].methodLabel == "sign";
    EXPECT_EQ(valueOf(runs[i].trainArgs(), "--lr"), sign ? "0.0001" : "0.05");
    EXPECT_EQ(valueOf(runs[i].trainArgs(), "--max-iters"), "40");  // the full length
    const std::vector<std::string> grid =
        sign ? std::vector<std::string>{"0.001", "0.0001"} : std::vector<std::string>{};
    EXPECT_EQ(runs[i].lrTunedFrom, grid);
    EXPECT_EQ(runs[i].hash == untuned[i].hash, !sign);
  }
  EXPECT_EQ(tuneMetricName(TuneMetric::kTrainLoss), "train_loss");
}

// A finished (or diverged) run folder with just the summary fields tuning reads.
void writeRun(const std::filesystem::path& dir, const std::string& status, double accuracy) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "summary.json") << "{\"status\": \"" << status
                                      << "\", \"iterations\": 12, \"final_test_accuracy\": "
                                      << accuracy << ", \"train_time\": 0.5, \"wall_time\": 2}";
}

TEST(LrTuning, IndexKeepsOtherMethodsAndReadsBackFromTheFolders) {
  const std::filesystem::path sweep =
      std::filesystem::temp_directory_path() / "tetrad_lr_tuning_index_test";
  std::filesystem::remove_all(sweep);
  const std::filesystem::path tuning = sweep / kTuningFolder;
  writeRun(tuning / "a-lr0.1", "finished", 0.8);
  writeRun(tuning / "a-lr0.01", "finished", 0.9);
  writeRun(tuning / "b-lr1", "diverged", 0);
  writeRun(tuning / "b-lr0.1", "finished", 0.7);
  auto planOf = [](const std::string& method, const std::vector<std::string>& grid) {
    TuningPlan plan;
    plan.method = method;
    plan.grid = grid;
    plan.budgetIterations = 12;
    for (const std::string& lr : grid) {
      RunPlan run;
      run.name = method + "-lr" + lr;
      plan.runs.push_back(run);
    }
    return plan;
  };
  const TuningResult a =
      readTuning(planOf("a", {"0.1", "0.01"}), tuning.string(), TuneMetric::kTestAccuracy, 0.25);
  EXPECT_TRUE(a.complete);
  EXPECT_EQ(a.pick, "0.01");
  writeTuningIndex({a}, tuning.string());
  // A later sweep (--only b) tunes b: a's entry stays.
  const TuningResult b =
      readTuning(planOf("b", {"1", "0.1"}), tuning.string(), TuneMetric::kTestAccuracy, 0.25);
  EXPECT_EQ(b.pick, "0.1");  // 1 diverged
  writeTuningIndex({b}, tuning.string());
  std::vector<TuningResult> read = readTuningIndex(sweep.string());
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].method, "a");
  EXPECT_EQ(read[0].pick, "0.01");
  EXPECT_DOUBLE_EQ(read[0].points[1].metric, 0.9);
  EXPECT_DOUBLE_EQ(read[0].budget, 0.25);
  EXPECT_EQ(read[1].points[0].status, "diverged");
  // a not finished any more: no pick until it is.
  std::filesystem::remove(tuning / "a-lr0.01" / "summary.json");
  read = readTuningIndex(sweep.string());
  EXPECT_FALSE(read[0].complete);
  EXPECT_EQ(read[0].pick, "");
  std::filesystem::remove_all(sweep);
}

}  // namespace
}  // namespace tetrad::experiment
