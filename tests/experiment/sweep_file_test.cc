// Reading sweep files (src/tetrad/experiment/sweep_file.h): values, where they
// were written, and one-line errors naming file, line and key.
#include "tetrad/experiment/sweep_file.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tetrad/core/error.h"

namespace tetrad::experiment {
namespace {

constexpr const char* kSweep = R"(description = "two by two"
[workload]
model = "mlp"
lr = 1e-1
epochs = 2
bucket_size = 0
seeds = [3, 1]

[[cluster]]
label = "slow"
spec = "sim:1Gbps,50us"
workers = 4
sim_cfg = ["network/model:CM02", "network/crosstraffic:0"]

[[cluster]]
label = "ranks"
spec = "mpi"
workers = 2
mpirun_args = ["--oversubscribe"]

[[method]]
label = "topk-ef"
compress = "topk:0.01,ef"
lr = 0.2
args = ["--partition", "dirichlet:0.5"]
)";

// The message of the InvalidArgument that parsing `text` throws ("" if none).
std::string errorOf(const std::string& text) {
  try {
    parseSweepText(text, "x.toml");
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(SweepFile, ReadsValuesAndWhereTheyAre) {
  const SweepSpec spec = parseSweepText(kSweep, "sweep.toml");
  EXPECT_EQ(spec.description, "two by two");
  EXPECT_EQ(spec.seeds, (std::vector<uint64_t>{3, 1}));
  ASSERT_EQ(spec.clusters.size(), 2u);
  ASSERT_EQ(spec.methods.size(), 1u);
  EXPECT_EQ(spec.workload.at("model").values, std::vector<std::string>{"mlp"});
  EXPECT_EQ(spec.workload.at("lr").values, std::vector<std::string>{"0.1"});
  EXPECT_EQ(spec.workload.at("epochs").values, std::vector<std::string>{"2"});
  EXPECT_EQ(spec.workload.at("bucket_size").values, std::vector<std::string>{"0"});
  EXPECT_EQ(spec.workload.at("lr").where.toString(), "sweep.toml:4:1");
  EXPECT_EQ(spec.workload.at("lr").table, "[workload]");

  const ClusterEntry& slow = spec.clusters[0];
  EXPECT_EQ(slow.label, "slow");
  EXPECT_FALSE(slow.mpi);
  EXPECT_EQ(slow.workers, 4);
  EXPECT_EQ(slow.settings.at("cluster").values, std::vector<std::string>{"sim:1Gbps,50us"});
  EXPECT_EQ(slow.settings.at("sim_cfg").values.size(), 2u);
  EXPECT_EQ(slow.where.line, 10);
  const ClusterEntry& ranks = spec.clusters[1];
  EXPECT_TRUE(ranks.mpi);
  EXPECT_EQ(ranks.mpirunArgs, std::vector<std::string>{"--oversubscribe"});

  const MethodEntry& method = spec.methods[0];
  EXPECT_EQ(method.label, "topk-ef");
  EXPECT_EQ(method.settings.at("compress").values, std::vector<std::string>{"topk:0.01,ef"});
  EXPECT_EQ(method.settings.at("lr").where.toString(), "sweep.toml:24:1");
  EXPECT_EQ(method.settings.at("args").values,
            (std::vector<std::string>{"--partition", "dirichlet:0.5"}));
}

TEST(SweepFile, Baseline16NamesAMethodLabel) {
  const std::string named = std::string("baseline16 = \"topk-ef\"\n") + kSweep;
  EXPECT_EQ(parseSweepText(named, "sweep.toml").baseline16, "topk-ef");
  EXPECT_EQ(parseSweepText(kSweep, "sweep.toml").baseline16, "");
  const std::string unknown = std::string("baseline16 = \"fp16-ddp\"\n") + kSweep;
  try {
    parseSweepText(unknown, "sweep.toml");
    FAIL() << "an unknown baseline16 label was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("key 'baseline16': no [[method]] is labelled 'fp16-ddp'"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepFile, CanonicalNumbers) {
  EXPECT_EQ(canonicalNumber(0.1), "0.1");
  EXPECT_EQ(canonicalNumber(1e-1), "0.1");
  EXPECT_EQ(canonicalNumber(2.0), "2");
  EXPECT_EQ(canonicalNumber(5e-4), "0.0005");
}

constexpr const char* kCluster = "\n[[cluster]]\nlabel = \"c\"\nspec = \"sim:10Gbps,25us\"\n";
constexpr const char* kMethod = "\n[[method]]\nlabel = \"m\"\n";

TEST(SweepFile, UnknownKeyNamesFileLineAndKey) {
  const std::string text =
      std::string("[workload]\nmodel = \"mlp\"\nlrr = 0.1\n") + kCluster + kMethod;
  const std::string error = errorOf(text);
  EXPECT_NE(error.find("x.toml:3:1: unknown key 'lrr' in [workload]"), std::string::npos) << error;
  EXPECT_NE(error.find("known: seeds, sync"), std::string::npos) << error;
  EXPECT_NE(errorOf(std::string(kCluster) + kMethod + "speed = 3\n")
                .find("x.toml:8:1: unknown key 'speed' in [[method]] 'm'"),
            std::string::npos);
  EXPECT_NE(errorOf(std::string("workers = 2\n") + kCluster + kMethod)
                .find("x.toml:1:1: unknown key 'workers' in the top level"),
            std::string::npos);
  // Cluster-only keys are unknown in a method.
  EXPECT_NE(errorOf(std::string(kCluster) + kMethod + "workers = 2\n")
                .find("unknown key 'workers' in [[method]] 'm'"),
            std::string::npos);
}

TEST(SweepFile, WrongTypeNamesTheExpectedType) {
  std::string error = errorOf(std::string("[workload]\nepochs = \"two\"\n") + kCluster + kMethod);
  EXPECT_NE(error.find("x.toml:2:10: key 'epochs' in [workload]: must be an integer, not a string"),
            std::string::npos)
      << error;
  error = errorOf(std::string("[workload]\nlr = true\n") + kCluster + kMethod);
  EXPECT_NE(error.find("key 'lr' in [workload]: must be a number, not a boolean"),
            std::string::npos)
      << error;
  error = errorOf(std::string("[workload]\nseeds = [1, \"2\"]\n") + kCluster + kMethod);
  EXPECT_NE(error.find("key 'seeds'"), std::string::npos) << error;
  error = errorOf(std::string("[workload]\nsim_cfg = \"a\"\n") + kCluster + kMethod);
  EXPECT_NE(error.find("unknown key 'sim_cfg' in [workload]"), std::string::npos) << error;
  error = errorOf(std::string(kCluster) + "sim_cfg = \"a\"\n" + kMethod);
  EXPECT_NE(error.find("x.toml:5:11: key 'sim_cfg' in [[cluster]] 'c': must be an array of "
                       "strings, not a string"),
            std::string::npos)
      << error;
  error = errorOf(std::string("[method]\nlabel = \"m\"\n") + kCluster);
  EXPECT_NE(error.find("key 'method' in the top level: must be an array of tables ([[method]])"),
            std::string::npos)
      << error;
}

TEST(SweepFile, NoMethodOrClusterIsAnError) {
  std::string error = errorOf(std::string("method = []\n") + kCluster);
  EXPECT_NE(error.find("x.toml:1:1: key 'method': the sweep has no [[method]] table"),
            std::string::npos)
      << error;
  error = errorOf(kCluster);
  EXPECT_NE(error.find("x.toml: key 'method'"), std::string::npos) << error;
  error = errorOf(kMethod);
  EXPECT_NE(error.find("key 'cluster': the sweep has no [[cluster]] table"), std::string::npos)
      << error;
}

TEST(SweepFile, LabelsAreRequiredUniqueAndSafe) {
  std::string error = errorOf(std::string(kCluster) + kMethod + kMethod);
  EXPECT_NE(error.find("x.toml:10:1: key 'label': duplicate method label 'm' (first at line 7)"),
            std::string::npos)
      << error;
  error = errorOf(std::string(kCluster) + "\n[[method]]\ncompress = \"fp16\"\n");
  EXPECT_NE(error.find("x.toml:6: key 'label': a [[method]] table needs a label"),
            std::string::npos)
      << error;
  error = errorOf(std::string(kCluster) + "\n[[method]]\nlabel = \"top k\"\n");
  EXPECT_NE(error.find("invalid method label 'top k'"), std::string::npos) << error;
  // The same label may name a method and a cluster.
  EXPECT_EQ(errorOf(std::string(kCluster) + "\n[[method]]\nlabel = \"c\"\n"), "");
}

TEST(SweepFile, ClusterNeedsAValidSpecAndMpiNeedsWorkers) {
  std::string error = errorOf(std::string("[[cluster]]\nlabel = \"c\"\n") + kMethod);
  EXPECT_NE(error.find("x.toml:2:1: key 'spec'"), std::string::npos) << error;
  error = errorOf(std::string("[[cluster]]\nlabel = \"c\"\nspec = \"10Gbps\"\n") + kMethod);
  EXPECT_NE(error.find("x.toml:3:1: key 'spec': invalid cluster spec '10Gbps'"), std::string::npos)
      << error;
  error = errorOf(std::string("[[cluster]]\nlabel = \"c\"\nspec = \"mpi\"\n") + kMethod);
  EXPECT_NE(error.find("key 'workers'"), std::string::npos) << error;
}

TEST(SweepFile, SyntaxErrorNamesTheLine) {
  const std::string error = errorOf("[workload]\nmodel = \"mlp\"\nlr = = 1\n");
  EXPECT_NE(error.find("x.toml:3:"), std::string::npos) << error;
  EXPECT_NE(error.find("TOML syntax error"), std::string::npos) << error;
}

// [map]: the method map `tetrad run` draws when the sweep ends; its axes are
// checked where they are written.
TEST(SweepFile, MapTableKeepsItsAxesAndRefusesBadOnesWithTheirLine) {
  const std::string base = std::string(kSweep) + "\n[map]\n";
  EXPECT_FALSE(parseSweepText(kSweep, "x.toml").map.present);
  const SweepSpec spec = parseSweepText(
      base + "bandwidth = \"1Gbps:100Gbps:3\"\nlatency = \"5us:50us:2\"\nnet_model = \"cm02\"\n",
      "x.toml");
  EXPECT_TRUE(spec.map.present);
  EXPECT_EQ(spec.map.bandwidth, "1Gbps:100Gbps:3");
  EXPECT_EQ(spec.map.latency, "5us:50us:2");
  EXPECT_EQ(spec.map.netModel, "cm02");
  // Defaults: as `tetrad advise --map`.
  const SweepSpec defaults = parseSweepText(base, "x.toml");
  EXPECT_TRUE(defaults.map.present);
  EXPECT_EQ(defaults.map.bandwidth, "100Mbps:400Gbps:6");
  EXPECT_EQ(defaults.map.latency, "1us:1ms:3");
  const int line = 1 + int(std::count(base.begin(), base.end(), '\n'));
  EXPECT_EQ(errorOf(base + "bandwidth = \"10Gbps:1Gbps:3\"\n"),
            "x.toml:" + std::to_string(line) +
                ":13: key 'bandwidth' in [map]: invalid [map] bandwidth '10Gbps:1Gbps:3': min "
                "is larger than max");
  EXPECT_NE(errorOf(base + "latency = \"1us:1ms:0\"\n").find("STEPS must be in"),
            std::string::npos);
  EXPECT_NE(errorOf(base + "latency = 3\n").find("must be a string"), std::string::npos);
  // The compute axis: factors > 0, "1" (as trained) by default.
  EXPECT_EQ(defaults.map.computeScale, "1");
  EXPECT_EQ(parseSweepText(base + "compute_scale = \"0.1,1,10\"\n", "x.toml").map.computeScale,
            "0.1,1,10");
  EXPECT_NE(errorOf(base + "compute_scale = \"1,-2\"\n").find("'-2' is not a factor > 0"),
            std::string::npos);
  EXPECT_NE(errorOf(base + "colour = \"red\"\n")
                .find("unknown key 'colour' in [map] (known: bandwidth, latency, compute_scale, "
                      "net_model, noise_ratio)"),
            std::string::npos);
  // noise_ratio: a number >= 0 or "fit"; "1" by default.
  EXPECT_EQ(defaults.map.noiseRatio, "");  // the advisor's default
  EXPECT_EQ(parseSweepText(base + "noise_ratio = \"fit\"\n", "x.toml").map.noiseRatio, "fit");
  EXPECT_EQ(parseSweepText(base + "noise_ratio = 250\n", "x.toml").map.noiseRatio, "250");
  EXPECT_EQ(parseSweepText(base + "noise_ratio = 0.5\n", "x.toml").map.noiseRatio, "0.5");
  for (const char* bad : {"noise_ratio = -1\n", "noise_ratio = \"fitted\"\n"}) {
    EXPECT_NE(errorOf(base + bad).find("key 'noise_ratio' in [map]: need a number >= 0 or \"fit\""),
              std::string::npos)
        << bad << ": " << errorOf(base + bad);
  }
}

TEST(SweepFile, MissingFileIsAnError) {
  EXPECT_THROW(parseSweepFile("/nonexistent/sweep.toml"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::experiment
