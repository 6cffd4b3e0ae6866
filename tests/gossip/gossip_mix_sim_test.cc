// D-PSGD's gossip averaging (neighbour_mixer.h) on simulated star clusters:
// exact averages on the complete graph, consensus at least as fast as the
// spectral gap predicts, one-peer exact averaging, traffic, α–β time,
// payload-free mode and errors from peers.
#include <gtest/gtest.h>

#include <cmath>

#include "sim_helpers.h"
#include "tetrad/arch/gossip/gossip_cost.h"
#include "tetrad/arch/gossip/neighbour_mixer.h"
#include "tetrad/arch/gossip/spectral.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using testing::consensusDistance;
using testing::gossipStar;
using testing::initialVector;

// Runs `steps` mixing steps of `spec` on p ranks with vectors of n floats
// and returns every rank's vector after every step.
testing::History runMixing(const std::string& spec, int p, size_t n, int steps,
                           bool pooled = false) {
  const Topology topology = parseTopology(spec, p);
  testing::History history = testing::makeHistory(steps, p);
  launch(gossipStar(p), [&](Transport& transport) {
    const int r = transport.rank();
    std::vector<float> x = initialVector(r, n);
    history[0][r] = x;
    NeighbourMixer mixer;
    for (int t = 0; t < steps; ++t) {
      if (pooled) {
        mixWithNeighbours(transport, topology, t, x);
      } else {
        mixer.mix(transport, topology, t, x);
      }
      history[t + 1][r] = x;
    }
  });
  return history;
}

TEST(GossipMixSim, CompleteGraphGivesTheExactAverageOnEveryRank) {
  for (int p : {8, 5}) {
    const testing::History history = runMixing("complete", p, 1000, 1);
    const std::vector<double> mean = testing::meanOf(history[0]);
    for (int r = 0; r < p; ++r) {
      for (size_t k = 0; k < mean.size(); ++k) {
        ASSERT_NEAR(history[1][r][k], mean[k], 1e-6 * mean[k]) << "rank " << r << " [" << k << "]";
      }
      // The same expression in the same order on every rank: identical bits.
      EXPECT_EQ(history[1][r], history[1][0]) << "rank " << r;
    }
    // The pooled free function computes exactly what the mixer does.
    EXPECT_EQ(runMixing("complete", p, 1000, 1, /*pooled=*/true)[1], history[1]);
  }
}

TEST(GossipMixSim, ConsensusContractsAtLeastAsFastAsTheSpectralGap) {
  struct Case {
    std::string spec;
    int p;
  };
  for (const Case& c : {Case{"ring", 8}, Case{"ring", 5}, Case{"torus:3x4", 12}, Case{"exp", 8},
                        Case{"exp", 6}, Case{"random:3", 10}}) {
    SCOPED_TRACE(c.spec + " on " + std::to_string(c.p));
    const Topology topology = parseTopology(c.spec, c.p);
    const double rate = 1.0 - spectralGap(topology).gap;  // |λ₂|
    const int steps = 12;
    const testing::History history = runMixing(c.spec, c.p, 500, steps);
    const double initial = consensusDistance(history[0]);
    const std::vector<double> mean0 = testing::meanOf(history[0]);
    for (int t = 1; t <= steps; ++t) {
      const double bound = std::pow(rate, 2 * t) * initial;
      EXPECT_LE(consensusDistance(history[t]), bound * (1 + 1e-6) + 1e-11 * initial)
          << "step " << t;
    }
    EXPECT_LT(consensusDistance(history[steps]), 0.1 * initial);
    // Doubly stochastic: the average is preserved (up to float rounding).
    const std::vector<double> mean = testing::meanOf(history[steps]);
    for (size_t k = 0; k < mean.size(); ++k) ASSERT_NEAR(mean[k], mean0[k], 2e-6);
  }
}

TEST(GossipMixSim, OnePeerExpAveragesExactlyAfterLog2PSteps) {
  const testing::History history = runMixing("exp:one-peer", 8, 300, 3);
  const std::vector<double> mean = testing::meanOf(history[0]);
  EXPECT_GT(consensusDistance(history[2]), 1e-3);  // not yet after 2 steps
  for (int r = 0; r < 8; ++r) {
    for (size_t k = 0; k < mean.size(); ++k) {
      ASSERT_NEAR(history[3][r][k], mean[k], 1e-6 * mean[k]) << "rank " << r;
    }
  }
}

TEST(GossipMixSim, BytesSentPerStepAreDegreeTimesPacket) {
  const int p = 8;
  const size_t n = 1000;
  // A star and one chord: degrees 7, 2, 2, 1, ...
  const std::string edges =
      testing::writeTempFile("star_edges", "0 1\n0 2\n0 3\n0 4\n0 5\n0 6\n0 7\n1 2\n");
  for (const std::string& spec : std::vector<std::string>{"ring", "exp", "torus:2x4", "random:3",
                                                          "exp:one-peer", "file:" + edges}) {
    SCOPED_TRACE(spec);
    const Topology topology = parseTopology(spec, p);
    std::vector<std::vector<uint64_t>> sent(p), messages(p);
    launch(gossipStar(p), [&](Transport& transport) {
      std::vector<float> x = initialVector(transport.rank(), n);
      NeighbourMixer mixer;
      for (int t = 0; t < 4; ++t) {
        const uint64_t before = transport.traffic().totalBytesSent();
        const uint64_t messagesBefore = transport.traffic().totalMessagesSent();
        mixer.mix(transport, topology, t, x);
        sent[transport.rank()].push_back(transport.traffic().totalBytesSent() - before);
        messages[transport.rank()].push_back(transport.traffic().totalMessagesSent() -
                                             messagesBefore);
      }
    });
    for (int r = 0; r < p; ++r) {
      for (int t = 0; t < 4; ++t) {
        const uint64_t degree = topology.neighbours(r, t).size();
        EXPECT_EQ(sent[r][t], degree * 4 * n) << "rank " << r << " step " << t;
        EXPECT_EQ(messages[r][t], degree) << "rank " << r << " step " << t;
      }
    }
  }
}

TEST(GossipMixSim, StepTimeFollowsTheAlphaBetaModelOnAContentionFreeStar) {
  const size_t n = 1 << 20;  // 4 MiB per message
  // Irregular: a hub of degree 7 and one chord; the hub's link decides.
  const std::string hub =
      testing::writeTempFile("hub_edges", "0 1\n0 2\n0 3\n0 4\n0 5\n0 6\n0 7\n1 2\n");
  for (const std::string& spec :
       std::vector<std::string>{"ring", "exp", "complete", "torus:2x4", "file:" + hub}) {
    const Topology topology = parseTopology(spec, 8);
    double slowest = 0;
    launch(gossipStar(8, /*contentionFree=*/true, /*payloadFree=*/true), [&](Transport& transport) {
      std::vector<float> x(n);  // payload-free: never written
      const double start = transport.now();
      mixWithNeighbours(transport, topology, 0, x);
      slowest = std::max(slowest, transport.now() - start);
    });
    const GossipCost cost = gossipStepCost(topology, 4.0 * n, 25e-6, 1 / 1.25e9);
    EXPECT_NEAR(slowest / cost.seconds, 1.0, 0.05)
        << spec << ": simulated " << slowest << " s, model " << cost.seconds << " s";
  }
}

TEST(GossipMixSim, PayloadFreeMovesTheSameBytesAndLeavesXAlone) {
  const Topology topology = parseTopology("exp", 8);
  std::vector<uint64_t> sent(8);
  std::vector<bool> unchanged(8, false);
  launch(gossipStar(8, false, /*payloadFree=*/true), [&](Transport& transport) {
    std::vector<float> x = initialVector(transport.rank(), 100);
    const std::vector<float> before = x;
    NeighbourMixer mixer;
    mixer.mix(transport, topology, 0, x);
    mixWithNeighbours(transport, topology, 1, x);
    unchanged[transport.rank()] = x == before;
    sent[transport.rank()] = transport.traffic().totalBytesSent();
  });
  for (int r = 0; r < 8; ++r) {
    EXPECT_TRUE(unchanged[r]) << r;
    EXPECT_EQ(sent[r], 2u * 5 * 400) << r;
  }
}

TEST(GossipMixSim, DifferentLengthsAcrossRanksAreAProtocolError) {
  const Topology topology = parseTopology("ring", 4);
  LaunchOptions options = gossipStar(4);
  options.timeoutSeconds = 5;
  try {
    launch(options, [&](Transport& transport) {
      std::vector<float> x(transport.rank() == 2 ? 11 : 10, 1.0f);
      NeighbourMixer mixer;
      mixer.mix(transport, topology, 0, x);
    });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gossip mix on 'ring'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(launch(gossipStar(3),
                      [&](Transport& transport) {
                        std::vector<float> x(4);
                        mixWithNeighbours(transport, topology, 0, x);  // 4-rank topology
                      }),
               InvalidArgument);
}

}  // namespace
}  // namespace tetrad
