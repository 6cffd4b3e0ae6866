// Cluster specs: parsing of every form, clear errors for malformed ones, and
// the platforms they build (timing, ranks per node, XML files).
#include "tetrad/transport/sim/cluster_spec.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim_test_util.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using sim::parseClusterSpec;
using sim::Topology;
using testing::simOptions;

TEST(ClusterSpec, FlatStar) {
  sim::ClusterSpec spec = parseClusterSpec("sim:8x10Gbps,25us");
  EXPECT_EQ(spec.topology, Topology::kStar);
  EXPECT_EQ(spec.hosts, 8);
  EXPECT_DOUBLE_EQ(spec.link.bandwidth, 1.25e9);
  EXPECT_DOUBLE_EQ(spec.link.latency, 25e-6);
  EXPECT_EQ(spec.ranksPerNode, 1);
  spec = parseClusterSpec("sim:1.5GBps,1ms");
  EXPECT_EQ(spec.hosts, 0);
  EXPECT_DOUBLE_EQ(spec.link.bandwidth, 1.5e9);
  EXPECT_DOUBLE_EQ(spec.link.latency, 1e-3);
}

TEST(ClusterSpec, TwoLevel) {
  sim::ClusterSpec spec = parseClusterSpec("sim:4x8:100Gbps,2us:10Gbps,25us");
  EXPECT_EQ(spec.topology, Topology::kTwoLevel);
  EXPECT_EQ(spec.nodes, 4);
  EXPECT_EQ(spec.ranksPerNode, 8);
  EXPECT_EQ(spec.hosts, 32);
  EXPECT_DOUBLE_EQ(spec.intraLink.bandwidth, 12.5e9);
  EXPECT_DOUBLE_EQ(spec.intraLink.latency, 2e-6);
  EXPECT_DOUBLE_EQ(spec.link.bandwidth, 1.25e9);
}

TEST(ClusterSpec, FatTreeTorusAndFile) {
  sim::ClusterSpec tree = parseClusterSpec("sim:fattree:2;4,4;1,2;1,2:10Gbps,25us");
  EXPECT_EQ(tree.topology, Topology::kFatTree);
  EXPECT_EQ(tree.hosts, 16);
  EXPECT_EQ(tree.fatTree.levels, 2u);
  EXPECT_EQ(tree.fatTree.up, (std::vector<unsigned>{1, 2}));
  sim::ClusterSpec torus = parseClusterSpec("sim:torus:4x4x2:10Gbps,25us");
  EXPECT_EQ(torus.topology, Topology::kTorus);
  EXPECT_EQ(torus.hosts, 32);
  EXPECT_EQ(torus.torusDims, (std::vector<unsigned>{4, 4, 2}));
  sim::ClusterSpec file = parseClusterSpec("sim:some/dir/platform.xml");
  EXPECT_EQ(file.topology, Topology::kFile);
  EXPECT_EQ(file.file, "some/dir/platform.xml");
}

TEST(ClusterSpec, MalformedSpecsAreOneClearLine) {
  const char* bad[] = {"sim:banana",
                       "sim:",
                       "simulated:4x10Gbps,25us",
                       "sim:0x10Gbps,25us",
                       "sim:-3x10Gbps,25us",
                       "sim:4x-10Gbps,25us",
                       "sim:4x10Gbps,-25us",
                       "sim:4x10Gbps",
                       "sim:4x10Gbps,25us,3",
                       "sim:4x10Gbit,25us",
                       "sim:4x10Gbps,25min",
                       "sim:4x10Gbps,25us:1Gbps,1us",
                       "sim:4:10Gbps,25us:1Gbps,1us",
                       "sim:4x0:10Gbps,25us:1Gbps,1us",
                       "sim:fattree:2;4,4;1,2:10Gbps,25us",
                       "sim:fattree:2;4;1,2;1,2:10Gbps,25us",
                       "sim:fattree:2;4,4;1,2;1,2",
                       "sim:torus:4x0:10Gbps,25us",
                       "sim:torus:4xbanana:10Gbps,25us",
                       "sim:4x10Gbps,25us:a:b:c"};
  for (const char* spec : bad) {
    try {
      parseClusterSpec(spec);
      ADD_FAILURE() << "accepted " << spec;
    } catch (const InvalidArgument& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(spec), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(ClusterSpec, RankCount) {
  sim::ClusterSpec star = parseClusterSpec("sim:8x10Gbps,25us");
  EXPECT_EQ(sim::resolveRankCount(star, 0, 8), 8);
  EXPECT_EQ(sim::resolveRankCount(star, 3, 8), 3);
  EXPECT_THROW(sim::resolveRankCount(star, 9, 8), InvalidArgument);
  sim::ClusterSpec open = parseClusterSpec("sim:10Gbps,25us");
  EXPECT_THROW(sim::resolveRankCount(open, 0, 0), InvalidArgument);
  EXPECT_EQ(sim::resolveRankCount(open, 5, 0), 5);
}

TEST(ClusterSpec, RunRejectsBadSpecsAndCounts) {
  auto noop = [](Transport&) {};
  EXPECT_THROW(runSimulation(simOptions("sim:banana"), noop), InvalidArgument);
  EXPECT_THROW(runSimulation(simOptions("sim:10Gbps,25us"), noop), InvalidArgument);
  EXPECT_THROW(runSimulation(simOptions("sim:4x10Gbps,25us", 5), noop), InvalidArgument);
  try {
    runSimulation(simOptions("sim:/nonexistent/platform.xml"), noop);
    ADD_FAILURE() << "missing file accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  // --workers selects the first hosts.
  int size = 0;
  runSimulation(simOptions("sim:8x10Gbps,25us", 3), [&](Transport& t) { size = t.size(); });
  EXPECT_EQ(size, 3);
}

// Time for rank `from` to send `bytes` to rank `to`, alone on the platform.
double transferTime(const LaunchOptions& options, int from, int to, size_t bytes) {
  double time = -1;
  runSimulation(options, [&](Transport& t) {
    std::vector<std::byte> buffer(bytes);
    if (t.rank() == from) t.send(to, 0, buffer);
    if (t.rank() == to) {
      t.recv(from, 0, buffer);
      time = t.now();
    }
  });
  return time;
}

TEST(ClusterSpec, TwoLevelPlatformTiming) {
  LaunchOptions options = simOptions("sim:2x4:100Gbps,2us:10Gbps,25us");
  int perNode = 0;
  runSimulation(options, [&](Transport& t) { perNode = t.ranksPerNode(); });
  EXPECT_EQ(perNode, 4);
  const size_t n = 1 << 20;
  // Same node: intra links only.
  EXPECT_NEAR(transferTime(options, 1, 2, n), 2e-6 + n / 12.5e9, 1e-9);
  // Across nodes: both levels' latencies, the slower bandwidth.
  EXPECT_NEAR(transferTime(options, 1, 6, n), 2e-6 + 25e-6 + n / 1.25e9, 1e-9);
}

TEST(ClusterSpec, XmlPlatformFileRanksInDocumentOrder) {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / "tetrad_sim_test_platform.xml";
  {
    std::ofstream out(path);
    // Hosts deliberately not in name order: ranks follow the document.
    out << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <host id="zeta" speed="1Gf"/>
    <host id="alpha" speed="1Gf"/>
    <host id="mid" speed="1Gf"/>
    <link id="fast" bandwidth="1GBps" latency="10us"/>
    <link id="slow" bandwidth="100MBps" latency="1ms"/>
    <route src="zeta" dst="alpha"><link_ctn id="fast"/></route>
    <route src="zeta" dst="mid"><link_ctn id="slow"/></route>
    <route src="alpha" dst="mid"><link_ctn id="slow"/></route>
  </zone>
</platform>
)";
  }
  LaunchOptions options = simOptions("sim:" + path.string());
  // rank 0 = zeta, rank 1 = alpha: the fast link.
  EXPECT_NEAR(transferTime(options, 0, 1, 1000000), 10e-6 + 1e-3, 1e-9);
  EXPECT_NEAR(transferTime(options, 1, 2, 1000000), 1e-3 + 1e-2, 1e-9);
  options.workers = 2;
  int size = 0;
  runSimulation(options, [&](Transport& t) { size = t.size(); });
  EXPECT_EQ(size, 2);
  std::filesystem::remove(path);
}

TEST(ClusterSpec, MalformedXmlIsInvalidArgument) {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / "tetrad_sim_test_broken.xml";
  std::ofstream(path) << "<platform version=\"4.1\"><zone id=\"w\" routing=\"Full\"><host/>";
  EXPECT_THROW(runSimulation(simOptions("sim:" + path.string()), [](Transport&) {}),
               InvalidArgument);
  std::filesystem::remove(path);
  // The next run is unaffected.
  int size = 0;
  runSimulation(simOptions("sim:2x10Gbps,25us"), [&](Transport& t) { size = t.size(); });
  EXPECT_EQ(size, 2);
}

// Runs after the XML tests: in SimGrid 3.32, loading an XML platform in an
// engine created after one that held this 2-level fat-tree crashes inside
// SimGrid (EngineImpl::presolve); see platform.h.
TEST(ClusterSpec, FatTreeAndTorusRun) {
  const size_t n = 1 << 20;
  // Fat-tree 2;4,4;1,2;1,2: leaves 0 and 1 share a switch (2 links); 0 and 15
  // go through the top (4 links). Latency is per link.
  LaunchOptions tree = simOptions("sim:fattree:2;4,4;1,2;1,2:10Gbps,25us");
  EXPECT_NEAR(transferTime(tree, 0, 1, n), 2 * 25e-6 + n / 1.25e9, 1e-8);
  EXPECT_NEAR(transferTime(tree, 0, 15, n), 4 * 25e-6 + n / 1.25e9, 1e-8);
  // Torus 4x4x2: one hop between neighbours in the first dimension.
  LaunchOptions torus = simOptions("sim:torus:4x4x2:10Gbps,25us");
  double neighbour = transferTime(torus, 0, 1, n);
  double far = transferTime(torus, 0, 10, n);
  EXPECT_NEAR(neighbour, 25e-6 + n / 1.25e9, 1e-8);
  EXPECT_GT(far, neighbour + 25e-6);
  int size = 0;
  runSimulation(torus, [&](Transport& t) { size = t.size(); });
  EXPECT_EQ(size, 32);
}

}  // namespace
}  // namespace tetrad
