// Network profiles (model/netprofile/network_profile.h): the JSON format,
// refusal of bad files, named network models, and the simulator against the
// profile's own prediction.
#include "tetrad/model/netprofile/network_profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"

namespace tetrad::model {
namespace {

// A profile of a 200 Mbit/s, 20 us link with three intervals, and ring
// points on 2 ranks at 4 KB .. 16 MB.
NetworkProfile threeIntervals() {
  NetworkProfile p;
  p.linkSpec = "200Mbps,20us";
  p.bandwidth = 25e6;
  p.latency = 20e-6;
  p.ranks = 2;
  p.intervals = {{0, 3.0, 1.0, 60e-6, 1 / 25e6},
                 {4096, 6.0, 0.8, 120e-6, 1 / 20e6},
                 {262144, 25.0, 0.75, 500e-6, 1 / 18.75e6}};
  for (uint64_t bytes = 4096; bytes <= (16u << 20); bytes *= 4)
    p.points.push_back({"ring", 2, bytes, 1e-3, 1e-3, 1e-3, 5, 0, 0});
  return p;
}

std::string tempFile(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string loadError(const std::string& path) {
  try {
    loadNetworkProfile(path);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(modelNetworkProfile, JsonRoundTrip) {
  NetworkProfile p = threeIntervals();
  p.hosts = {"a", "b"};
  p.mca = {{"btl", "tcp,self"}};
  const NetworkProfile q = parseNetworkProfile(toJson(p), "test");
  ASSERT_EQ(q.intervals.size(), 3u);
  EXPECT_EQ(q.intervals[2].fromBytes, 262144u);
  EXPECT_DOUBLE_EQ(q.intervals[1].bandwidthFactor, 0.8);
  EXPECT_EQ(q.hosts, p.hosts);
  EXPECT_EQ(q.mca.at("btl"), "tcp,self");
  EXPECT_EQ(q.points.size(), p.points.size());
  EXPECT_EQ(q.latencyFactor().toString(), "0:3;4096:6;262144:25");
  EXPECT_EQ(q.bandwidthFactor().toString(), "0:1;4096:0.8;262144:0.75");
}

TEST(modelNetworkProfile, BadFilesAreRefusedWithOneLine) {
  const std::string good = toJson(threeIntervals());
  EXPECT_NE(loadError("/nonexistent/net.json").find("no such file"), std::string::npos);
  EXPECT_NE(loadError(tempFile("tetrad_np_trunc.json", good.substr(0, good.size() / 2)))
                .find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(loadError(tempFile("tetrad_np_text.json", "hello")).find("not valid JSON"),
            std::string::npos);
  std::string reordered = good;
  reordered.replace(reordered.find("\"from_bytes\": 262144"), 20, "\"from_bytes\": 4096  ");
  EXPECT_NE(loadError(tempFile("tetrad_np_order.json", reordered)).find("increasing sizes"),
            std::string::npos);
  std::string zero = good;
  zero.replace(zero.find("\"latency_factor\": 6.0"), 21, "\"latency_factor\": 0.0");
  EXPECT_NE(
      loadError(tempFile("tetrad_np_zero.json", zero)).find("latency_factor must be a positive"),
      std::string::npos);
  std::string negative = good;
  negative.replace(negative.find("\"bandwidth_factor\": 0.8"), 23, "\"bandwidth_factor\": -1 ");
  EXPECT_NE(loadError(tempFile("tetrad_np_neg.json", negative)).find("bandwidth_factor must be"),
            std::string::npos);
  std::string noLink = good;
  noLink.replace(noLink.find("\"link\""), 6, "\"lnk\" ");
  EXPECT_NE(loadError(tempFile("tetrad_np_link.json", noLink)).find("missing key 'link'"),
            std::string::npos);
  for (const std::string& e :
       {loadError("/nonexistent/net.json"), loadError(tempFile("tetrad_np_text.json", "hello"))})
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

// SimGrid's interval syntax: "T:F" covers sizes > T; the first chunk also
// everything below.
TEST(modelNetworkProfile, PiecewiseFactorSyntax) {
  const PiecewiseFactor f = PiecewiseFactor::parse("0:2;1024:1.5;65536:1", "test");
  EXPECT_DOUBLE_EQ(f.at(0), 2);
  EXPECT_DOUBLE_EQ(f.at(1024), 2);
  EXPECT_DOUBLE_EQ(f.at(1025), 1.5);
  EXPECT_DOUBLE_EQ(f.at(1e9), 1);
  EXPECT_EQ(f.toString(), "0:2;1024:1.5;65536:1");
  EXPECT_DOUBLE_EQ(PiecewiseFactor::parse("0.5", "test").at(10), 0.5);
  EXPECT_DOUBLE_EQ(PiecewiseFactor().at(10), 1);
  EXPECT_THROW(PiecewiseFactor::parse("1024:1;0:2", "test"), InvalidArgument);
  EXPECT_THROW(PiecewiseFactor::parse("0:0", "test"), InvalidArgument);
  EXPECT_THROW(PiecewiseFactor::parse("0:nan", "test"), InvalidArgument);
  EXPECT_THROW(PiecewiseFactor::parse("x:1", "test"), InvalidArgument);
}

TEST(modelNetworkProfile, NamedModels) {
  EXPECT_TRUE(resolveNetModel("").simConfig.empty());
  EXPECT_EQ(resolveNetModel("cm02").simConfig,
            (std::vector<std::string>{"network/model:CM02", "network/crosstraffic:0"}));
  const NetModelChoice lv08 = resolveNetModel("lv08");
  EXPECT_DOUBLE_EQ(lv08.latencyFactor.at(1000), 13.01);
  const std::string path = tempFile("tetrad_np_good.json", toJson(threeIntervals()));
  const NetModelChoice profile = resolveNetModel("profile:" + path);
  EXPECT_EQ(profile.simConfig.size(), 4u);
  EXPECT_EQ(profile.simConfig[2], "network/latency-factor:0:3;4096:6;262144:25");
  EXPECT_THROW(resolveNetModel("lv09"), InvalidArgument);
  EXPECT_THROW(resolveNetModel("profile:/nonexistent.json"), InvalidArgument);
  EXPECT_THROW(combineSimConfig(profile, {"network/model:LV08"}), InvalidArgument);
  EXPECT_EQ(combineSimConfig(resolveNetModel(""), {"network/model:CM02"}).size(), 1u);
  EXPECT_EQ(impliedNetModel({}), "lv08");
  EXPECT_EQ(impliedNetModel({"network/model:CM02"}), "sim-cfg:CM02");
}

// The table is the one home of a network model: every row resolves under its
// own name (a prefix row with an argument), keeps that name, is listed in
// the help and the error's list, and nothing outside the table is a name.
TEST(modelNetworkProfile, TableRowsAreTheNames) {
  const std::string path = tempFile("tetrad_np_table.json", toJson(threeIntervals()));
  for (const NetModelRow& row : netModelTable()) {
    const std::string name = std::string(row.name).ends_with(':') ? row.name + path : row.name;
    EXPECT_TRUE(isNetModelName(name)) << name;
    const NetModelChoice choice = resolveNetModel(name);
    EXPECT_EQ(choice.name, name);
    EXPECT_FALSE(choice.simConfig.empty()) << name;
    EXPECT_NE(netModelHelp().find(row.usage), std::string::npos) << row.usage;
    EXPECT_NE(knownNetModels().find(row.usage), std::string::npos) << row.usage;
  }
  EXPECT_FALSE(isNetModelName("lv09"));
  EXPECT_FALSE(isNetModelName("sim-cfg:CM02"));
  EXPECT_FALSE(isNetModelName(""));
  try {
    resolveNetModel("lv09");
    FAIL() << "lv09 resolved";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(knownNetModels()), std::string::npos) << e.what();
  }
}

double simulatedRing(const std::vector<std::string>& simConfig, const std::string& cluster, int p,
                     size_t floats) {
  LaunchOptions options;
  options.cluster = cluster;
  options.workers = p;
  options.timeoutSeconds = 100;
  options.payloadFree = true;
  options.simConfig = simConfig;
  std::vector<double> finish(p, 0.0);
  std::unique_ptr<float[]> shared(new float[floats]);
  launch(options, [&](Transport& transport) {
    const double start = transport.now();
    allreduce(transport, std::span<float>(shared.get(), floats),
              AllreduceOptions{AllreduceAlgorithm::kRing, ReduceOp::kSum, 100});
    finish[transport.rank()] = transport.now() - start;
  });
  return *std::max_element(finish.begin(), finish.end());
}

// The simulator with a profile's SimGrid items reproduces the profile's own
// prediction of ring all-reduce at every size, on 2 and 4 ranks.
TEST(modelNetworkProfile, SimulatedRingEqualsTheProfilesPrediction) {
  const NetworkProfile profile = threeIntervals();
  CostParams params{profile.latency, 1 / profile.bandwidth};
  params.latencyFactor = profile.latencyFactor();
  params.bandwidthFactor = profile.bandwidthFactor();
  for (int p : {2, 4}) {
    for (const ProfilePoint& point : profile.points) {
      const size_t floats = point.bytes / 4;
      const double predicted = allreduceCost(AllreduceAlgorithm::kRing, p, floats, params);
      const double simulated =
          simulatedRing(profile.simConfig(), fmt::format("sim:{}x200Mbps,20us", p), p, floats);
      EXPECT_NEAR(simulated / predicted, 1.0, 0.05)
          << p << " ranks, " << point.bytes << " B: simulated " << simulated << " s, predicted "
          << predicted << " s";
    }
  }
  // The factors matter: plain CM02 is far from the profile at small sizes.
  const double plain =
      simulatedRing(resolveNetModel("cm02").simConfig, "sim:2x200Mbps,20us", 2, 64);
  EXPECT_GT(allreduceCost(AllreduceAlgorithm::kRing, 2, 64, params) / plain, 2.0);
}

// The shipped lab profile's intervals are what the fit gives on its stored
// points (no network needed).
TEST(modelNetworkProfile, ShippedLabProfileReproducesItsFit) {
  const std::filesystem::path path = std::filesystem::path(__FILE__).parent_path() / ".." / ".." /
                                     "configs" / "net" / "netlab-200mbit.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  const NetworkProfile stored = loadNetworkProfile(path.string());
  NetworkProfile refit = stored;
  fitProfile(refit, stored.fitOptions());
  ASSERT_EQ(refit.intervals.size(), stored.intervals.size());
  for (size_t k = 0; k < stored.intervals.size(); ++k) {
    EXPECT_EQ(refit.intervals[k].fromBytes, stored.intervals[k].fromBytes) << k;
    EXPECT_NEAR(refit.intervals[k].latencyFactor / stored.intervals[k].latencyFactor, 1, 1e-6);
    EXPECT_NEAR(refit.intervals[k].bandwidthFactor / stored.intervals[k].bandwidthFactor, 1, 1e-6);
  }
  for (size_t k = 0; k < stored.points.size(); ++k)
    EXPECT_NEAR(refit.points[k].fitted / stored.points[k].fitted, 1, 1e-6) << k;
}

}  // namespace
}  // namespace tetrad::model
