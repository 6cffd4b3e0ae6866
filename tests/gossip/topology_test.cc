// Gossip topologies: neighbours, mixing weights (symmetric, doubly
// stochastic, uniform or Metropolis–Hastings), random regular graphs, edge
// lists and the one-line errors of bad specs.
#include "tetrad/arch/gossip/topology.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "tetrad/arch/gossip/gossip_cost.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

std::string writeFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "gossip_" + name;
  std::ofstream(path) << text;
  return path;
}

// Every spec that builds on n workers, among a fixed list.
std::vector<std::string> specsFor(int n) {
  std::vector<std::string> specs{"ring", "exp", "complete"};
  for (int r = 1; r <= n; ++r) {
    if (n % r == 0) specs.push_back("torus:" + std::to_string(r) + "x" + std::to_string(n / r));
  }
  if ((n & (n - 1)) == 0) specs.push_back("exp:one-peer");
  for (int d = 2; d < n && d <= 5; ++d) {
    if (n * d % 2 == 0) specs.push_back("random:" + std::to_string(d));
  }
  return specs;
}

// An irregular connected graph: a path 0-1-...-(n-1) plus chords from 0.
std::string irregularEdgeList(int n) {
  std::string text = "# path with chords\n";
  for (int i = 0; i + 1 < n; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  for (int i = 2; i < n; i += 2) text += std::to_string(i) + " 0   # chord\n";
  return text;
}

void expectValidMixing(const Topology& topology) {
  const int n = topology.size();
  for (int t = 0; t < topology.period(); ++t) {
    std::vector<double> columnSums(static_cast<size_t>(n), 0.0);
    for (int i = 0; i < n; ++i) {
      double rowSum = 0;
      const std::vector<MixingWeight> row = topology.mixingRow(i, t);
      ASSERT_EQ(row.size(), topology.neighbours(i, t).size() + 1) << topology.spec();
      for (size_t k = 0; k < row.size(); ++k) {
        const MixingWeight& m = row[k];
        if (k > 0) {
          EXPECT_LT(row[k - 1].rank, m.rank) << topology.spec();
        }
        EXPECT_GT(m.weight, 0.0) << topology.spec() << " w(" << i << "," << m.rank << ")";
        EXPECT_EQ(m.weight, topology.weight(m.rank, i, t))
            << topology.spec() << " not symmetric at (" << i << "," << m.rank << ")";
        rowSum += m.weight;
        columnSums[m.rank] += m.weight;
      }
      EXPECT_NEAR(rowSum, 1.0, 1e-12) << topology.spec() << " row " << i;
    }
    for (int j = 0; j < n; ++j) EXPECT_NEAR(columnSums[j], 1.0, 1e-12) << topology.spec();
  }
}

TEST(GossipTopology, MixingMatricesAreSymmetricAndDoublyStochastic) {
  for (int n : {1, 2, 3, 4, 5, 6, 8, 12, 16, 33}) {
    for (const std::string& spec : specsFor(n)) {
      SCOPED_TRACE(spec + " on " + std::to_string(n));
      expectValidMixing(parseTopology(spec, n));
    }
    if (n >= 3) {
      const std::string path = writeFile("irregular" + std::to_string(n), irregularEdgeList(n));
      const Topology topology = parseTopology("file:" + path, n);
      EXPECT_FALSE(topology.regular() && n > 4);
      expectValidMixing(topology);
    }
  }
}

TEST(GossipTopology, RegularGraphsMixUniformly) {
  const Topology ring = parseTopology("ring", 5);
  for (int i = 0; i < 5; ++i) {
    for (const MixingWeight& m : ring.mixingRow(i, 0)) EXPECT_EQ(m.weight, 1.0 / 3.0);
  }
  const Topology torus = parseTopology("torus:3x4", 12);
  EXPECT_EQ(torus.minDegree(), 4);
  EXPECT_EQ(torus.maxDegree(), 4);
  EXPECT_EQ(torus.weight(5, 5, 0), 0.2);
  EXPECT_EQ(torus.weight(5, 6, 0), 0.2);  // right neighbour of (1,1)
  EXPECT_EQ(torus.weight(5, 1, 0), 0.2);  // up
  EXPECT_EQ(torus.weight(5, 7, 0), 0.0);  // not a neighbour
  const Topology complete = parseTopology("complete", 8);
  for (const MixingWeight& m : complete.mixingRow(3, 0)) EXPECT_EQ(m.weight, 0.125);
}

TEST(GossipTopology, IrregularGraphsUseMetropolisHastings) {
  // Path 0 - 1 - 2 - 3: degrees 1, 2, 2, 1.
  const std::string path = writeFile("path4", "0 1\n1 2\n\n2 3 # last\n");
  const Topology topology = parseTopology("file:" + path, 4);
  EXPECT_FALSE(topology.regular());
  EXPECT_DOUBLE_EQ(topology.weight(0, 1, 0), 1.0 / 3);
  EXPECT_DOUBLE_EQ(topology.weight(0, 0, 0), 2.0 / 3);
  EXPECT_DOUBLE_EQ(topology.weight(1, 2, 0), 1.0 / 3);
  EXPECT_DOUBLE_EQ(topology.weight(1, 1, 0), 1.0 / 3);
  EXPECT_EQ(topology.weight(0, 3, 0), 0.0);
}

TEST(GossipTopology, NeighboursOfEachShape) {
  EXPECT_EQ(parseTopology("ring", 2).maxDegree(), 1);
  EXPECT_EQ(parseTopology("ring", 1).maxDegree(), 0);
  const Topology exp8 = parseTopology("exp", 8);  // ±1, ±2, 4
  const std::vector<int> expected{1, 2, 4, 6, 7};
  const std::span<const int> got = exp8.neighbours(0, 0);
  EXPECT_EQ(std::vector<int>(got.begin(), got.end()), expected);
  EXPECT_EQ(parseTopology("exp", 6).maxDegree(), 4);  // ±1, ±2, ±4 = ∓2
  const Topology onePeer = parseTopology("exp:one-peer", 8);
  EXPECT_EQ(onePeer.period(), 3);
  EXPECT_TRUE(onePeer.timeVarying());
  for (int64_t t = 0; t < 7; ++t) {
    const std::span<const int> peer = onePeer.neighbours(5, t);
    ASSERT_EQ(peer.size(), 1u);
    EXPECT_EQ(peer[0], 5 ^ (1 << (t % 3))) << "step " << t;
    EXPECT_EQ(onePeer.weight(5, peer[0], t), 0.5);
  }
  const Topology torus = parseTopology("torus:2x3", 6);  // rows of 2 wrap onto one edge
  EXPECT_EQ(torus.maxDegree(), 3);
  EXPECT_EQ(torus.minDegree(), 3);
}

TEST(GossipTopology, RandomRegularGraphsAreRegularConnectedAndSeeded) {
  for (auto [n, d] : {std::pair{8, 3}, {10, 4}, {33, 4}, {64, 5}, {100, 2}, {2, 1}, {7, 6}}) {
    const Topology a = parseTopology("random:" + std::to_string(d), n, 42);
    EXPECT_EQ(a.minDegree(), d) << n;
    EXPECT_EQ(a.maxDegree(), d) << n;
    const Topology b = parseTopology("random:" + std::to_string(d), n, 42);
    for (int i = 0; i < n; ++i) {
      const auto x = a.neighbours(i, 0), y = b.neighbours(i, 0);
      EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "not reproducible";
    }
  }
  // Another seed gives another graph (64 nodes, degree 4: a coincidence is
  // astronomically unlikely); a seed in the spec overrides the argument.
  const Topology a = parseTopology("random:4", 64, 1), b = parseTopology("random:4", 64, 2);
  const Topology c = parseTopology("random:4:2", 64, 1);
  bool differ = false;
  for (int i = 0; i < 64; ++i) {
    const auto x = a.neighbours(i, 0), y = b.neighbours(i, 0), z = c.neighbours(i, 0);
    differ |= !std::equal(x.begin(), x.end(), y.begin(), y.end());
    EXPECT_TRUE(std::equal(y.begin(), y.end(), z.begin(), z.end()));
  }
  EXPECT_TRUE(differ);
}

struct BadSpec {
  std::string spec;
  int workers;
  std::string message;  // the whole expected message
};

TEST(GossipTopology, BadSpecsGiveOneLineErrors) {
  const std::string malformed = writeFile("malformed", "0 1\n1 2\n# fine\n1 2 3\n");
  const std::string selfLoop = writeFile("selfloop", "0 1\n1 1\n");
  const std::string range = writeFile("range", "0 1\n1 2\n2 3\n3 9\n");
  const std::string disconnected = writeFile("disconnected", "0 1\n1 2\n2 0\n3 4\n");
  const std::string words = writeFile("words", "0 one\n");
  const std::vector<BadSpec> cases{
      {"torus:3x3", 8, "invalid topology 'torus:3x3': 3x3 = 9 ranks, but the world has 8 workers"},
      {"torus:3", 3,
       "invalid topology 'torus:3': expected torus:RxC with R, C >= 1 (e.g. torus:4x4)"},
      {"torus:0x8", 8,
       "invalid topology 'torus:0x8': expected torus:RxC with R, C >= 1 (e.g. torus:4x4)"},
      {"random:8", 8, "invalid topology 'random:8': degree 8 must be below the 8 workers"},
      {"random:3", 7, "invalid topology 'random:3': random:3: n·D must be even, got 7·3"},
      {"random:1", 4,
       "invalid topology 'random:1': random:1 on 4 workers is a perfect matching, which is "
       "disconnected"},
      {"random:x", 4,
       "invalid topology 'random:x': expected random:D[:SEED] with an integer degree D (e.g. "
       "random:4)"},
      {"exp:one-peer", 6,
       "invalid topology 'exp:one-peer': exp:one-peer needs a power-of-two number of workers, got "
       "6"},
      {"exp:two-peer", 8,
       "invalid topology 'exp:two-peer': unknown exp variant 'two-peer' (known: one-peer)"},
      {"ring:3", 8, "invalid topology 'ring:3': 'ring' takes no parameter"},
      {"mesh", 8,
       "invalid topology 'mesh': unknown topology 'mesh' (known: ring, torus:RxC, exp, "
       "exp:one-peer, complete, random:D[:SEED], file:PATH)"},
      {"ring", 0, "invalid topology 'ring': needs at least one worker, got 0"},
      {"complete", 5000,
       "invalid topology 'complete': a complete graph on 5000 workers is too large (at most 4096: "
       "the adjacency holds n(n-1) ranks)"},
      {"file:" + malformed, 3,
       "invalid topology 'file:" + malformed + "': " + malformed +
           ":4: expected \"i j\", got '1 2 3'"},
      {"file:" + selfLoop, 3,
       "invalid topology 'file:" + selfLoop + "': " + selfLoop + ":2: self loop 1 1"},
      {"file:" + range, 8,
       "invalid topology 'file:" + range + "': " + range + ":4: rank 9 out of range [0, 8)"},
      {"file:" + disconnected, 5,
       "invalid topology 'file:" + disconnected + "': edge list '" + disconnected +
           "' on 5 workers is not connected: rank 3 is unreachable from rank 0"},
      {"file:" + words, 2,
       "invalid topology 'file:" + words + "': " + words + ":1: expected two ranks, got '0 one'"},
      {"file:/nonexistent/edges", 2,
       "invalid topology 'file:/nonexistent/edges': cannot open edge list '/nonexistent/edges'"},
  };
  for (const BadSpec& c : cases) {
    try {
      parseTopology(c.spec, c.workers);
      ADD_FAILURE() << c.spec << " on " << c.workers << " workers was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(GossipTopology, StepCostOfAStar) {
  const Topology ring = parseTopology("ring", 8);
  const GossipCost cost = gossipStepCost(ring, 4e6, 25e-6, 1 / 1.25e9);
  EXPECT_DOUBLE_EQ(cost.bytesPerWorker, 8e6);
  EXPECT_DOUBLE_EQ(cost.seconds, 25e-6 + 8e6 / 1.25e9);
  EXPECT_DOUBLE_EQ(cost.serialSeconds, 2 * (25e-6 + 4e6 / 1.25e9));
  EXPECT_EQ(gossipStepCost(parseTopology("ring", 1), 4e6, 25e-6, 1e-9).seconds, 0.0);
}

}  // namespace
}  // namespace tetrad
