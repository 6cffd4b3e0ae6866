// Spectral gaps: the Jacobi eigensolver, closed forms (ring, torus,
// complete, exp, one-peer), the power iteration used above 256 ranks, and
// the whole spectrum's consensus variance.
#include "tetrad/arch/gossip/spectral.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <optional>

#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

TEST(GossipSpectral, JacobiFindsKnownEigenvalues) {
  DenseMatrix a(3);
  a(0, 0) = 2, a(0, 1) = 1, a(1, 0) = 1, a(1, 1) = 2, a(2, 2) = -5;
  const std::vector<double> eig = symmetricEigenvalues(a);
  ASSERT_EQ(eig.size(), 3u);
  EXPECT_NEAR(eig[0], -5, 1e-14);
  EXPECT_NEAR(eig[1], 1, 1e-14);
  EXPECT_NEAR(eig[2], 3, 1e-14);
  a(0, 2) = 1;  // no longer symmetric
  EXPECT_THROW(symmetricEigenvalues(a), InvalidArgument);
}

TEST(GossipSpectral, RingGapMatchesTheClosedForm) {
  for (int n : {3, 4, 5, 7, 8, 16, 33, 100, 256}) {
    const SpectralInfo info = spectralGap(parseTopology("ring", n));
    const double expected = 1 - (1 + 2 * std::cos(2 * std::numbers::pi / n)) / 3;
    EXPECT_TRUE(info.exact);
    EXPECT_NEAR(info.gap, expected, 1e-12) << "ring(" << n << ")";
  }
}

TEST(GossipSpectral, PowerIterationAboveTheJacobiLimit) {
  // ring(300): gap 1.46e-4, the next eigenvalue close by: the hardest case
  // the documented limit claims.
  const SpectralInfo ring = spectralGap(parseTopology("ring", 300));
  const double expected = 1 - (1 + 2 * std::cos(2 * std::numbers::pi / 300)) / 3;
  EXPECT_FALSE(ring.exact);
  EXPECT_NEAR(ring.gap / expected, 1.0, 1e-3) << ring.iterations << " iterations";
  // random:4 on 300 ranks: Jacobi on the dense matrix agrees.
  const Topology random = parseTopology("random:4", 300, 7);
  const SpectralInfo power = spectralGap(random);
  DenseMatrix w = mixingMatrix(random, 0);
  for (double& v : w.values) v -= 1.0 / 300;
  const std::vector<double> eig = symmetricEigenvalues(w);
  const double slem = std::max(std::abs(eig.front()), std::abs(eig.back()));
  EXPECT_NEAR(power.contraction, slem, 1e-6);
  EXPECT_GT(power.gap, 0.05);  // expanders have a large gap
}

TEST(GossipSpectral, ClosedFormsOfOtherTopologies) {
  EXPECT_NEAR(spectralGap(parseTopology("complete", 8)).gap, 1.0, 1e-12);
  // torus 4x4: eigenvalues (1 + 2cos(2πa/4) + 2cos(2πb/4))/5, |λ₂| = 3/5.
  EXPECT_NEAR(spectralGap(parseTopology("torus:4x4", 16)).contraction, 0.6, 1e-12);
  // exp(8): (1 + 2cosθ + 2cos2θ + cos4θ)/6, largest modulus 1/3 at θ = π.
  EXPECT_NEAR(spectralGap(parseTopology("exp", 8)).contraction, 1.0 / 3, 1e-12);
  EXPECT_EQ(spectralGap(parseTopology("ring", 1)).gap, 1.0);
}

TEST(GossipSpectral, OnePeerAveragesExactlyOverOnePeriod) {
  for (int n : {2, 8, 16}) {
    const Topology topology = parseTopology("exp:one-peer", n);
    // A single step does not contract: W = (I + P)/2 has eigenvalue 1 on
    // vectors constant on pairs.
    DenseMatrix w = mixingMatrix(topology, 0);
    for (double& v : w.values) v -= 1.0 / n;
    const std::vector<double> eig = symmetricEigenvalues(w);
    if (n > 2) {
      EXPECT_NEAR(eig.back(), 1.0, 1e-12);
    }
    // The product over a period is 11ᵀ/n: contraction 0, gap 1.
    const SpectralInfo info = spectralGap(topology);
    EXPECT_NEAR(info.contraction, 0.0, 1e-6) << n;
    EXPECT_NEAR(info.gap, 1.0, 1e-6) << n;
  }
}

// The consensus variance (1/n)Σλᵢ²/(1 − λᵢ²): the ring's closed-form
// spectrum λ_k = (1 + 2cos(2πk/n))/3, k = 1..n−1; 0 where W averages at once;
// never above the gap's bound ((n − 1)/n)(1/p − 1); none without a spectrum.
TEST(GossipSpectral, ConsensusVarianceOfTheWholeSpectrum) {
  for (const int n : {3, 8, 32, 100}) {
    double expected = 0;
    for (int k = 1; k < n; ++k) {
      const double lambda = (1 + 2 * std::cos(2 * std::numbers::pi * k / n)) / 3;
      expected += lambda * lambda / (1 - lambda * lambda);
    }
    expected /= n;
    const std::optional<double> kappa = consensusVariance(parseTopology("ring", n));
    ASSERT_TRUE(kappa.has_value()) << n;
    EXPECT_NEAR(*kappa, expected, 1e-9 * expected + 1e-12) << "ring of " << n;
  }
  EXPECT_NEAR(*consensusVariance(parseTopology("complete", 8)), 0.0, 1e-12);
  EXPECT_EQ(*consensusVariance(parseTopology("ring", 1)), 0.0);
  for (const char* spec : {"ring", "torus:4x8", "exp", "random:3"}) {
    const Topology topology = parseTopology(spec, 32, 5);
    const double lambda = spectralGap(topology).contraction;
    const double bound = (31.0 / 32) * (1 / (1 - lambda * lambda) - 1);
    EXPECT_GT(*consensusVariance(topology), 0) << spec;
    EXPECT_LE(*consensusVariance(topology), bound * (1 + 1e-12)) << spec;
  }
  // The ring of 32: 11x below the gap's bound (docs/convergence.md).
  const double ring32 = *consensusVariance(parseTopology("ring", 32));
  EXPECT_NEAR(ring32, 3.453, 5e-4);
  EXPECT_FALSE(consensusVariance(parseTopology("exp:one-peer", 8)).has_value());
  EXPECT_FALSE(consensusVariance(parseTopology("ring", kJacobiMaxSize + 1)).has_value());
}

TEST(GossipSpectral, MixingMatrixRefusesHugeWorlds) {
  EXPECT_THROW(mixingMatrix(parseTopology("ring", kMixingMatrixMaxSize + 1), 0), Unsupported);
}

}  // namespace
}  // namespace tetrad
