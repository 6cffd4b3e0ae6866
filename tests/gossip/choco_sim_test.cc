// CHOCO-SGD's compressed gossip (choco_gossip.h) on simulated star clusters:
// with `none` and γ = 1 it is D-PSGD's averaging, with Top-k it still
// reaches consensus, it sends degree × packet bytes, its state round-trips
// through serialize(), and bad options are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim_helpers.h"
#include "tetrad/arch/gossip/choco_gossip.h"
#include "tetrad/arch/gossip/neighbour_mixer.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using testing::consensusDistance;
using testing::gossipStar;
using testing::initialVector;

TEST(GossipChocoSim, IdentityCompressorWithGammaOneIsNeighbourAveraging) {
  for (const std::string& spec : std::vector<std::string>{"ring", "torus:2x3", "exp"}) {
    SCOPED_TRACE(spec);
    const int p = 6, steps = 6;
    const size_t n = 257;
    const Topology topology = parseTopology(spec, p);
    const CompressorPtr none = makeCompressor("none");
    testing::History choco = testing::makeHistory(steps, p), plain = choco;
    launch(gossipStar(p), [&](Transport& transport) {
      const int r = transport.rank();
      std::vector<float> x = initialVector(r, n), y = x;
      ChocoState state = makeChocoState(topology, r, n);
      NeighbourMixer mixer;
      ChocoOptions options;
      options.gossip.tag = 500;  // disjoint from the mixer's default tags
      for (int t = 0; t < steps; ++t) {
        chocoGossipStep(transport, topology, x, *none, state, options);
        mixer.mix(transport, topology, t, y);
        choco[t + 1][r] = x;
        plain[t + 1][r] = y;
      }
      EXPECT_EQ(state.steps, steps);
    });
    for (int t = 1; t <= steps; ++t) {
      for (int r = 0; r < p; ++r) {
        for (size_t k = 0; k < n; ++k) {
          ASSERT_NEAR(choco[t][r][k], plain[t][r][k], 2e-6)
              << "step " << t << " rank " << r << " [" << k << "]";
        }
      }
    }
  }
}

TEST(GossipChocoSim, TopKStillReachesConsensus) {
  const int p = 8, steps = 60;
  const size_t n = 1000;
  const Topology topology = parseTopology("ring", p);
  const CompressorPtr topk = makeCompressor("topk:0.1");
  testing::History history = testing::makeHistory(steps, p);
  launch(gossipStar(p), [&](Transport& transport) {
    const int r = transport.rank();
    std::vector<float> x = initialVector(r, n);
    history[0][r] = x;
    ChocoState state = makeChocoState(topology, r, n, /*seed=*/3);
    for (int t = 0; t < steps; ++t) {
      chocoGossipStep(transport, topology, x, *topk, state, ChocoOptions{0.1, {}});
      history[t + 1][r] = x;
    }
  });
  // Measured: 71.1, 19.2, 5.12, 2.71, 1.72, 1.13, 0.749 every 10 steps.
  const double d0 = consensusDistance(history[0]);
  for (int t = 10; t <= steps; t += 10) {
    EXPECT_LT(consensusDistance(history[t]), 0.9 * consensusDistance(history[t - 10]))
        << "steps " << t - 10 << " to " << t;
  }
  EXPECT_LT(consensusDistance(history[steps]), 0.02 * d0);
  // Symmetric weights: Σ_i x_i is preserved.
  const std::vector<double> mean0 = testing::meanOf(history[0]);
  const std::vector<double> mean = testing::meanOf(history[steps]);
  for (size_t k = 0; k < n; ++k) ASSERT_NEAR(mean[k], mean0[k], 1e-5);
}

TEST(GossipChocoSim, SendsDegreeTimesPacketBytes) {
  const int p = 8;
  const size_t n = 1000;
  const CompressorPtr topk = makeCompressor("topk:0.1");
  CompressorState probe;
  const size_t packetBytes = topk->encode(initialVector(0, n), probe).size();
  for (const std::string& spec : std::vector<std::string>{"ring", "exp", "random:3"}) {
    const Topology topology = parseTopology(spec, p);
    std::vector<uint64_t> sent(p), messages(p);
    for (const bool payloadFree : {false, true}) {
      launch(gossipStar(p, false, payloadFree), [&](Transport& transport) {
        const int r = transport.rank();
        std::vector<float> x = initialVector(r, n);
        ChocoState state = makeChocoState(topology, r, n);
        for (int t = 0; t < 3; ++t) chocoGossipStep(transport, topology, x, *topk, state);
        sent[r] = transport.traffic().totalBytesSent();
        messages[r] = transport.traffic().totalMessagesSent();
      });
      for (int r = 0; r < p; ++r) {
        const uint64_t degree = topology.neighbours(r, 0).size();
        EXPECT_EQ(sent[r], 3 * degree * packetBytes) << spec << " rank " << r;
        EXPECT_EQ(messages[r], 3 * degree) << spec << " rank " << r;
      }
    }
  }
}

TEST(GossipChocoSim, StateRoundTripsThroughSerialize) {
  const Topology topology = parseTopology("ring", 4);
  const CompressorPtr topk = makeCompressor("topk:0.25");
  std::vector<ChocoState> states(4);
  launch(gossipStar(4), [&](Transport& transport) {
    const int r = transport.rank();
    std::vector<float> x = initialVector(r, 64);
    ChocoState state = makeChocoState(topology, r, 64, 9);
    for (int t = 0; t < 3; ++t) chocoGossipStep(transport, topology, x, *topk, state);
    states[r] = state;
  });
  const ByteBuffer bytes = states[1].serialize();
  const ChocoState copy = ChocoState::deserialize(bytes);
  EXPECT_EQ(copy.rank, 1);
  EXPECT_EQ(copy.steps, 3);
  EXPECT_EQ(copy.ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(copy.publicCopies, states[1].publicCopies);
  EXPECT_EQ(copy.compressor.step, states[1].compressor.step);
  EXPECT_EQ(copy.compressor.seed, 9u);
  const std::span<const float> neighbour = copy.publicCopy(2);  // x̂ moved away from 0
  EXPECT_TRUE(std::any_of(neighbour.begin(), neighbour.end(), [](float v) { return v != 0; }));
  ByteBuffer truncated(bytes.begin(), bytes.end() - 3);
  EXPECT_THROW(ChocoState::deserialize(truncated), ProtocolError);
}

TEST(GossipChocoSim, BadOptionsAreRefused) {
  const Topology ring = parseTopology("ring", 4);
  const CompressorPtr none = makeCompressor("none");
  for (const double gamma : {0.0, -0.5, 1.5}) {
    try {
      launch(gossipStar(4), [&](Transport& transport) {
        std::vector<float> x(8, 1.0f);
        ChocoState state = makeChocoState(ring, transport.rank(), 8);
        chocoGossipStep(transport, ring, x, *none, state, ChocoOptions{gamma, {}});
      });
      ADD_FAILURE() << "gamma " << gamma << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("gamma must be in (0, 1]"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(makeChocoState(parseTopology("exp:one-peer", 8), 0, 8), Unsupported);
  // A state built for another length or rank.
  EXPECT_THROW(launch(gossipStar(4),
                      [&](Transport& transport) {
                        std::vector<float> x(8, 1.0f);
                        ChocoState state = makeChocoState(ring, transport.rank(), 9);
                        chocoGossipStep(transport, ring, x, *none, state);
                      }),
               InvalidArgument);
}

}  // namespace
}  // namespace tetrad
