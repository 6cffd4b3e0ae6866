// Expanding a sweep into runs (run_plan.h) and checking them before any
// starts (run_validation.h, here with a stand-in for train's checks).
#include "tetrad/experiment/run_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/experiment/run_hash.h"
#include "tetrad/experiment/run_validation.h"
#include "tetrad/experiment/sweep_file.h"

namespace tetrad::experiment {
namespace {

constexpr const char* kSweep = R"([workload]
model = "mlp"
lr = 0.05
seeds = [1, 2]

[[cluster]]
label = "slow"
spec = "sim:1Gbps,50us"
workers = 4
lr = 0.07

[[cluster]]
label = "ranks"
spec = "mpi"
workers = 2
mpirun_args = ["--oversubscribe"]

[[method]]
label = "plain"

[[method]]
label = "topk"
compress = "topk:0.01,ef"
lr = 0.1
)";

bool has(const std::vector<std::string>& args, const std::string& flag, const std::string& value) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == flag && args[i + 1] == value) return true;
  }
  return false;
}

TEST(RunPlan, ExpandsClustersMethodsSeeds) {
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"));
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].clusterLabel, "slow");
  EXPECT_EQ(runs[0].methodLabel, "plain");
  EXPECT_EQ(runs[0].seed, 1u);
  EXPECT_EQ(runs[1].seed, 2u);
  EXPECT_EQ(runs[2].methodLabel, "topk");
  EXPECT_EQ(runs[4].clusterLabel, "ranks");
  for (const RunPlan& run : runs) {
    EXPECT_EQ(run.hash, hashArguments(run.trainArgs()));
    EXPECT_EQ(run.name, run.methodLabel + "-" + run.clusterLabel + "-s" + std::to_string(run.seed) +
                            "-" + run.hash.substr(0, 8));
  }
  // Every run has its own folder.
  std::vector<std::string> names;
  for (const RunPlan& run : runs) names.push_back(run.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
}

TEST(RunPlan, MethodOverridesClusterOverridesWorkload) {
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"));
  EXPECT_TRUE(has(runs[0].trainArgs(), "--lr", "0.07"));  // plain on slow: the cluster's
  EXPECT_TRUE(has(runs[2].trainArgs(), "--lr", "0.1"));   // topk: the method's
  EXPECT_TRUE(has(runs[4].trainArgs(), "--lr", "0.05"));  // plain on ranks: the workload's
  EXPECT_TRUE(has(runs[2].trainArgs(), "--compress", "topk:0.01,ef"));
  EXPECT_TRUE(has(runs[0].trainArgs(), "--cluster", "sim:1Gbps,50us"));
  EXPECT_TRUE(has(runs[0].trainArgs(), "--workers", "4"));
  EXPECT_TRUE(has(runs[1].trainArgs(), "--seed", "2"));
  // Canonical order: the taxonomy point first, the seed near the end.
  const std::vector<std::string> args = runs[2].trainArgs();
  EXPECT_EQ(args.front(), "--compress");
  EXPECT_LT(std::find(args.begin(), args.end(), "--model"),
            std::find(args.begin(), args.end(), "--seed"));
}

TEST(RunPlan, HashIgnoresKeyOrderAndNumberSpelling) {
  const std::string a =
      "[workload]\nlr = 0.1\nmodel = \"mlp\"\n[[cluster]]\nlabel = \"c\"\n"
      "spec = \"sim:10Gbps,25us\"\n[[method]]\nlabel = \"m\"\n";
  const std::string b =
      "[workload]\nmodel = \"mlp\"\nlr = 1e-1\n[[cluster]]\n"
      "spec = \"sim:10Gbps,25us\"\nlabel = \"c\"\n[[method]]\nlabel = \"m\"\n";
  const std::string c =
      "[workload]\nmodel = \"mlp\"\nlr = 0.2\n[[cluster]]\n"
      "spec = \"sim:10Gbps,25us\"\nlabel = \"c\"\n[[method]]\nlabel = \"m\"\n";
  const RunPlan runA = planRuns(parseSweepText(a, "a.toml")).front();
  const RunPlan runB = planRuns(parseSweepText(b, "b.toml")).front();
  const RunPlan runC = planRuns(parseSweepText(c, "c.toml")).front();
  EXPECT_EQ(runA.hash, runB.hash);
  EXPECT_EQ(runA.name, runB.name);
  EXPECT_NE(runA.hash, runC.hash);
}

// timing_only = true passes --timing-only; false passes nothing (the same
// run, the same hash, as without the key); any other type is an error.
TEST(RunPlan, TimingOnlyIsAFlag) {
  const std::string base =
      "[workload]\nmodel = \"mlp\"\n[[cluster]]\nlabel = \"c\"\n"
      "spec = \"sim:10Gbps,25us\"\n[[method]]\nlabel = \"m\"\n";
  const RunPlan plain = planRuns(parseSweepText(base, "a.toml")).front();
  const RunPlan on = planRuns(parseSweepText(base + "timing_only = true\n", "b.toml")).front();
  const RunPlan off = planRuns(parseSweepText(base + "timing_only = false\n", "c.toml")).front();
  const std::vector<std::string> args = on.trainArgs();
  EXPECT_EQ(std::count(args.begin(), args.end(), "--timing-only"), 1);
  EXPECT_EQ(std::count(args.begin(), args.end(), "true"), 0);
  EXPECT_EQ(off.trainArgs(), plain.trainArgs());
  EXPECT_EQ(off.hash, plain.hash);
  EXPECT_NE(on.hash, plain.hash);
  try {
    parseSweepText(base + "timing_only = \"yes\"\n", "d.toml");
    FAIL() << "a string for timing_only was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("timing_only"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a boolean"), std::string::npos) << e.what();
  }
}

// engine = "analytic" (the analytic engine of timing-only runs) passes
// --engine analytic and makes another run.
TEST(RunPlan, EngineIsPassedToTrain) {
  const std::string base =
      "[workload]\nmodel = \"mlp\"\ntiming_only = true\n[[cluster]]\nlabel = \"c\"\n"
      "spec = \"sim:10Gbps,25us\"\n[[method]]\nlabel = \"m\"\n";
  const RunPlan plain = planRuns(parseSweepText(base, "a.toml")).front();
  const RunPlan analytic =
      planRuns(parseSweepText(base + "engine = \"analytic\"\n", "b.toml")).front();
  const std::vector<std::string> args = analytic.trainArgs();
  const auto flag = std::find(args.begin(), args.end(), "--engine");
  ASSERT_NE(flag, args.end());
  ASSERT_NE(flag + 1, args.end());
  EXPECT_EQ(*(flag + 1), "analytic");
  EXPECT_NE(analytic.hash, plain.hash);
}

TEST(RunPlan, OnlySelectsMethodsAndClusters) {
  const SweepSpec spec = parseSweepText(kSweep, "s.toml");
  EXPECT_EQ(planRuns(spec, {"topk"}).size(), 4u);
  EXPECT_EQ(planRuns(spec, {"ranks"}).size(), 4u);
  const std::vector<RunPlan> runs = planRuns(spec, {"topk", "ranks"});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].methodLabel, "topk");
  EXPECT_EQ(runs[0].clusterLabel, "ranks");
  try {
    planRuns(spec, {"nosuch"});
    FAIL() << "expected an error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("--only 'nosuch'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("methods: plain, topk"), std::string::npos) << e.what();
  }
}

TEST(RunPlan, ChildCommandUsesMpirunForMpiClusters) {
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"));
  const std::vector<std::string> sim = childCommand(runs[0], "/bin/tetrad", "out/x", "mpirun");
  EXPECT_EQ(sim[0], "/bin/tetrad");
  EXPECT_EQ(sim[1], "train");
  EXPECT_TRUE(has(sim, "--out", "out/x"));
  EXPECT_TRUE(has(sim, "--name", runs[0].name));
  const std::vector<std::string> mpi = childCommand(runs[4], "/bin/tetrad", "out/y", "mpirun");
  ASSERT_GE(mpi.size(), 6u);
  EXPECT_EQ(
      std::vector<std::string>(mpi.begin(), mpi.begin() + 6),
      (std::vector<std::string>{"mpirun", "-np", "2", "--oversubscribe", "/bin/tetrad", "train"}));
  EXPECT_TRUE(has(mpi, "--cluster", "mpi"));
}

TEST(RunPlan, ChildCommandGivesSimulatedRunsTheirThreads) {
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"));
  EXPECT_FALSE(has(childCommand(runs[0], "t", "o", "mpirun"), "--sim-threads", "0"));
  const std::vector<std::string> sim = childCommand(runs[0], "t", "o", "mpirun", 3);
  EXPECT_TRUE(has(sim, "--sim-threads", "3"));
  // Like the folder, the threads are not part of the run's identity.
  EXPECT_EQ(runs[0].hash, planRuns(parseSweepText(kSweep, "s.toml"))[0].hash);
  EXPECT_EQ(std::count(sim.begin(), sim.end(), "--sim-threads"), 1);
  // MPI runs are processes of their own.
  const std::vector<std::string> mpi = childCommand(runs[4], "t", "o", "mpirun", 3);
  EXPECT_EQ(std::count(mpi.begin(), mpi.end(), "--sim-threads"), 0);
  // A timing-only run, or one that sets the threads itself, is left alone.
  RunPlan timing = runs[0];
  timing.arguments.push_back({"timing_only", {"--timing-only"}, {}, "[workload]"});
  const std::vector<std::string> t = childCommand(timing, "t", "o", "mpirun", 3);
  EXPECT_EQ(std::count(t.begin(), t.end(), "--sim-threads"), 0);
  RunPlan own = runs[0];
  own.arguments.push_back({"args", {"--sim-threads", "1"}, {}, "[workload]"});
  const std::vector<std::string> o = childCommand(own, "t", "o", "mpirun", 3);
  EXPECT_EQ(std::count(o.begin(), o.end(), "--sim-threads"), 1);
  EXPECT_TRUE(has(o, "--sim-threads", "1"));
}

// A stand-in for train's checks: a Top-k ratio of 0 is invalid, and the
// native all-reduce needs --cluster mpi.
void fakeValidate(const std::vector<std::string>& args) {
  TETRAD_CHECK(!has(args, "--compress", "topk:0"), InvalidArgument,
               "invalid compressor 'topk:0': ratio must be in (0, 1]");
  TETRAD_CHECK(!has(args, "--arch", "allreduce:native") || has(args, "--cluster", "mpi"),
               Unsupported, "native all-reduce needs --cluster mpi");
}

std::string validationError(const std::string& text) {
  try {
    validateRuns(planRuns(parseSweepText(text, "v.toml")), fakeValidate);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(RunValidation, BlamesTheSettingThatBreaksTheRun) {
  const std::string base =
      "[[cluster]]\nlabel = \"c\"\nspec = \"sim:10Gbps,25us\"\n"
      "[[method]]\nlabel = \"ok\"\n[[method]]\nlabel = \"bad\"\n";
  EXPECT_EQ(validationError(base), "");
  const std::string error = validationError(base + "compress = \"topk:0\"\n");
  EXPECT_NE(error.find("v.toml:8:1: key 'compress' in [[method]] 'bad' (run bad-c-s1-"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("ratio must be in (0, 1]"), std::string::npos) << error;
  // A rule broken by the cluster, blamed on the method's setting that
  // needs another cluster; an Unsupported becomes an InvalidArgument.
  const std::string native = validationError(base + "arch = \"allreduce:native\"\n");
  EXPECT_NE(native.find("v.toml:8:1: key 'arch' in [[method]] 'bad'"), std::string::npos) << native;
}

TEST(RunValidation, NamesTheMethodWhenNoSingleSettingIsToBlame) {
  // Removing either setting alone leaves the other one invalid.
  const std::string text =
      "[workload]\ncompress = \"topk:0\"\n[[cluster]]\nlabel = \"c\"\n"
      "spec = \"sim:10Gbps,25us\"\n[[method]]\nlabel = \"m\"\n"
      "args = [\"--compress\", \"topk:0\"]\n";
  const std::string error = validationError(text);
  EXPECT_NE(error.find("v.toml:7:1: [[method]] 'm' on [[cluster]] 'c'"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace tetrad::experiment
