// Which runs of a sweep with `retime = true` are retimes, and of which run
// (retime_plan.h): synchronous methods train on the first network and are
// replayed on the others; asynchronous ones, measured compute and clusters
// that change more than the network train everywhere.
#include "tetrad/experiment/retime_plan.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tetrad/core/error.h"

#include "tetrad/experiment/run_hash.h"
#include "tetrad/experiment/sweep_file.h"

namespace tetrad::experiment {
namespace {

constexpr const char* kSweep = R"([workload]
model = "mlp"
compute = "flops:100"
seeds = [1, 2]
retime = true

[[cluster]]
label = "1g"
spec = "sim:1Gbps,50us"
workers = 4

[[cluster]]
label = "10g"
spec = "sim:10Gbps,25us"
workers = 4

[[cluster]]
label = "wide"
spec = "sim:10Gbps,25us"
workers = 8

[[cluster]]
label = "lv08"
spec = "sim:100Gbps,5us"
workers = 4
net_model = "lv08"

[[cluster]]
label = "other-lr"
spec = "sim:100Gbps,5us"
workers = 4
lr = 0.5

[[method]]
label = "bsp"

[[method]]
label = "asp"
sync = "asp"
arch = "ps:1"

[[method]]
label = "measured"
compute = "measured"
)";

const RunPlan& find(const std::vector<RunPlan>& runs, const std::string& method,
                    const std::string& cluster, uint64_t seed) {
  for (const RunPlan& run : runs) {
    if (run.methodLabel == method && run.clusterLabel == cluster && run.seed == seed) return run;
  }
  throw std::runtime_error("no run " + method + "-" + cluster);
}

TEST(RetimePlan, SynchronousMethodsAreRetimedFromTheirFirstNetwork) {
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"));
  ASSERT_EQ(runs.size(), 30u);
  for (uint64_t seed : {1u, 2u}) {
    const RunPlan& trained = find(runs, "bsp", "1g", seed);
    EXPECT_TRUE(trained.retimeOf.empty());
    const RunPlan& tenG = find(runs, "bsp", "10g", seed);
    EXPECT_EQ(tenG.retimeOf, trained.name);  // the same seed's run
    EXPECT_EQ(tenG.retimeArgs, (std::vector<std::string>{"--cluster", "sim:10Gbps,25us"}));
    // Its folder differs from a trained run of the same arguments.
    EXPECT_NE(tenG.hash, hashArguments(tenG.trainArgs()));
    EXPECT_EQ(tenG.name, "bsp-10g-s" + std::to_string(seed) + "-" + tenG.hash.substr(0, 8));
    // Another worker count trains (its iterations differ).
    EXPECT_TRUE(find(runs, "bsp", "wide", seed).retimeOf.empty());
    // A network model the cluster sets is passed on.
    const RunPlan& lv08 = find(runs, "bsp", "lv08", seed);
    EXPECT_EQ(lv08.retimeOf, trained.name);
    EXPECT_EQ(lv08.retimeArgs, (std::vector<std::string>{"--cluster", "sim:100Gbps,5us",
                                                         "--net-model", "lv08"}));
    // A cluster that changes the trajectory (its own lr) trains.
    EXPECT_TRUE(find(runs, "bsp", "other-lr", seed).retimeOf.empty());
    for (const char* cluster : {"1g", "10g", "wide", "lv08", "other-lr"}) {
      EXPECT_TRUE(find(runs, "asp", cluster, seed).retimeOf.empty()) << cluster;
      EXPECT_TRUE(find(runs, "measured", cluster, seed).retimeOf.empty()) << cluster;
    }
  }
}

TEST(RetimePlan, RefusalsSayWhy) {
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"));
  EXPECT_EQ(retimeRefusal(find(runs, "bsp", "10g", 1)), "");
  EXPECT_NE(retimeRefusal(find(runs, "asp", "10g", 1)).find("asynchronous"), std::string::npos);
  EXPECT_NE(retimeRefusal(find(runs, "measured", "10g", 1)).find("measured"), std::string::npos);
}

TEST(RetimePlan, ComputeIsJudgedByItsParsedKind) {
  // A scaled measurement is still measured time; a device's throughput is a
  // rate, so its runs replay. The kind comes from model/compute_spec.h.
  std::string text = kSweep;
  text += R"(
[[method]]
label = "scaled"
compute = "measured*0.1"

[[method]]
label = "rated"
compute = "throughput:400"
)";
  const std::vector<RunPlan> runs = planRuns(parseSweepText(text, "s.toml"));
  EXPECT_NE(retimeRefusal(find(runs, "scaled", "10g", 1)).find("measured"), std::string::npos);
  EXPECT_TRUE(find(runs, "scaled", "10g", 1).retimeOf.empty());
  EXPECT_EQ(retimeRefusal(find(runs, "rated", "10g", 1)), "");
  EXPECT_EQ(find(runs, "rated", "10g", 1).retimeOf, find(runs, "rated", "1g", 1).name);
}

TEST(RetimePlan, WithoutTheKeyEveryRunTrains) {
  std::string text = kSweep;
  text.replace(text.find("retime = true"), 13, "retime = false");
  for (const RunPlan& run : planRuns(parseSweepText(text, "s.toml"))) {
    EXPECT_TRUE(run.retimeOf.empty()) << run.name;
    EXPECT_EQ(run.hash, hashArguments(run.trainArgs()));
  }
}

TEST(RetimePlan, OnlyTheRetimedClusterTrainsIt) {
  // --only 10g leaves the 1g run out, so the 10g run trains.
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"), {"10g"});
  for (const RunPlan& run : runs) EXPECT_TRUE(run.retimeOf.empty()) << run.name;
}

TEST(RetimePlan, ChildCommandIsARetimeIntoTheRunFolder) {
  const std::vector<RunPlan> runs = planRuns(parseSweepText(kSweep, "s.toml"));
  const RunPlan& tenG = find(runs, "bsp", "10g", 1);
  const std::vector<std::string> command =
      childCommand(tenG, "/bin/tetrad", "out/" + tenG.name, "mpirun", 2);
  const std::vector<std::string> expected = {"/bin/tetrad", "retime",
                                             "out/" + tenG.retimeOf, "--cluster",
                                             "sim:10Gbps,25us", "--out",
                                             "out/" + tenG.name, "--as-run"};
  EXPECT_EQ(command, expected);
}

TEST(RetimePlan, RetimeKeyMustBeABoolean) {
  std::string text = kSweep;
  text.replace(text.find("retime = true"), 13, "retime = 1");
  EXPECT_THROW(parseSweepText(text, "s.toml"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::experiment
