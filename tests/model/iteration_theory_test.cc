// Iteration theory (model/iteration_theory.h) and compression error
// (model/compression_error.h): ω of QSGD and Random-k measured with the real
// compressors against their closed forms, the multipliers against the
// formulas of docs/convergence.md, and the spectral gap of a ring.
#include "tetrad/model/iteration_theory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tetrad/arch/gossip/spectral.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/model/compression_error.h"

namespace tetrad::model {
namespace {

constexpr int kDraws = 400;

// |measured − expected| within 4 standard errors of the mean of the draws
// (plus float rounding): fails with probability ~6e-5 when right.
void expectWithinSamplingError(const CompressionError& e, double expected) {
  ASSERT_EQ(e.draws, kDraws);
  ASSERT_GT(e.standardError, 0);
  EXPECT_NEAR(e.ratio, expected, 4 * e.standardError + 1e-6 * expected)
      << "standard error " << e.standardError;
}

// E‖Q_s(x) − x‖²/‖x‖² of QSGD for a given x: Σ f(1 − f)/s², f the fractional
// part of s|x_i|/‖x‖ (each element rounds up with probability f).
double qsgdExactRatio(const std::vector<float>& x, int s) {
  double norm = 0;
  for (float v : x) norm += double(v) * v;
  norm = std::sqrt(norm);
  double sum = 0;
  for (float v : x) {
    const double level = s * std::abs(double(v)) / norm;
    const double f = level - std::floor(level);
    sum += f * (1 - f);
  }
  return sum / (double(s) * s);
}

// Each compressor declares its class (Compressor::theory()); the advisor
// reads the declaration, not the name.
TEST(modelIterationTheory, CompressorsDeclareTheirClass) {
  const std::vector<std::pair<std::string, CompressorTheory>> expected = {
      {"none", CompressorTheory::kExact},
      {"fp16", CompressorTheory::kExact},
      {"bf16", CompressorTheory::kExact},
      {"qsgd:16", CompressorTheory::kUnbiased},
      {"natural", CompressorTheory::kUnbiased},
      {"topk:0.01", CompressorTheory::kNotCovered},
      {"topk:0.01,ef", CompressorTheory::kErrorFeedback},
      {"randomk:0.01,ef", CompressorTheory::kErrorFeedback},
      {"threshold:0.001", CompressorTheory::kNotCovered},
      {"sign", CompressorTheory::kNotCovered},
      {"efsign", CompressorTheory::kErrorFeedback},
      {"onebit", CompressorTheory::kErrorFeedback},
      {"powersgd:2", CompressorTheory::kErrorFeedback},
      {"dgc:0.01", CompressorTheory::kErrorFeedback},
      {"gtopk:0.01", CompressorTheory::kErrorFeedback},
  };
  for (const auto& [spec, theory] : expected) {
    EXPECT_EQ(compressorTheory(*makeCompressor(spec)), theory) << spec;
  }
}

TEST(modelIterationTheory, QsgdOmegaMatchesItsClosedFormWithinSamplingError) {
  for (const int s : {1, 4, 16}) {
    const std::vector<float> x = gaussianVector(1000, 7 + s);
    // One bucket of all 1000 elements (one norm), as the closed form assumes.
    const CompressorPtr qsgd = makeCompressor(fmt::format("qsgd:{}:bucket=1000", s));
    const CompressionError e = measureCompressionError(*qsgd, x, {}, kDraws);
    const double exact = qsgdExactRatio(x, s);
    expectWithinSamplingError(e, exact);
    // Lemma 3.1's bound, and the test can tell ω from a wrong closed form.
    const double d = double(x.size());
    EXPECT_LE(e.ratio, std::min(d / (s * s), std::sqrt(d) / s)) << "s = " << s;
    EXPECT_GT(std::abs(e.ratio - 1.2 * exact), 4 * e.standardError) << "s = " << s;
  }
}

TEST(modelIterationTheory, RandomKOmegaIsDOverKMinusOne) {
  const std::vector<float> x = gaussianVector(1000, 3);
  // Scaled (unbiased): ω = d/k − 1 = 9 for k = 100 of 1000.
  const CompressorPtr scaled = makeCompressor("randomk:0.1:scaled");
  ASSERT_TRUE(scaled->unbiased());
  const CompressionError e = measureCompressionError(*scaled, x, {}, kDraws);
  expectWithinSamplingError(e, 1000.0 / 100 - 1);
  EXPECT_GT(std::abs(e.ratio - 1000.0 / 100), 4 * e.standardError);
  // Unscaled (contractive): δ = k/d, so the ratio is 1 − k/d.
  const CompressorPtr unscaled = makeCompressor("randomk:0.1");
  expectWithinSamplingError(measureCompressionError(*unscaled, x, {}, kDraws), 1 - 0.1);
}

TEST(modelIterationTheory, ErrorFeedbackMeasuresItsInnerCompressor) {
  // EF-signSGD's scaled sign: δ = ‖x‖₁²/(d‖x‖²) (Karimireddy et al. 2019, Lemma 8).
  const std::vector<float> x = gaussianVector(4096, 11);
  double l1 = 0, l2 = 0;
  for (float v : x) {
    l1 += std::abs(double(v));
    l2 += double(v) * v;
  }
  const CompressionError e = measureCompressionError(*makeCompressor("efsign"), x, {}, 1);
  EXPECT_NEAR(1 - e.ratio, l1 * l1 / (4096 * l2), 1e-4);
  // Top-k with ",ef": a fresh state has no residual, so δ is Top-k's.
  const CompressionError topk = measureCompressionError(*makeCompressor("topk:0.5,ef"), x, {}, 1);
  EXPECT_GT(1 - topk.ratio, 0.5);  // the larger half holds more than half the energy
  EXPECT_LT(1 - topk.ratio, 1.0);
}

TEST(modelIterationTheory, FormulasOnAFixture) {
  // n = 8, s = 1 (docs/convergence.md).
  EXPECT_DOUBLE_EQ(unbiasedMultiplier(3, 8, 1), ((1 + 3.0 / 8) + 4 * 1) / 2);  // 2.6875
  EXPECT_DOUBLE_EQ(errorFeedbackMultiplier(0.25, 8, 1), (1 + std::sqrt(0.75 * 8) / 0.25 + 4) / 2);
  EXPECT_DOUBLE_EQ(consensusMultiplier(3, 8, 1), (1 + std::sqrt(24.0) + 1 + 3) / 2);
  EXPECT_DOUBLE_EQ(stalenessMultiplier(7, 8, 1), 1.0);
  // BSP's own point is 1 in every family, at any noise ratio.
  for (const double s : {0.0, 0.5, 1.0, 10.0}) {
    EXPECT_DOUBLE_EQ(unbiasedMultiplier(0, 8, s), 1.0);
    EXPECT_DOUBLE_EQ(errorFeedbackMultiplier(1, 8, s), 1.0);
    EXPECT_DOUBLE_EQ(consensusMultiplier(0, 8, s), 1.0);
  }
  EXPECT_THROW(errorFeedbackMultiplier(0, 8, 1), InvalidArgument);
  EXPECT_THROW(unbiasedMultiplier(1, 8, -1), InvalidArgument);
}

TEST(modelIterationTheory, MethodMultipliersUseTheFormulas) {
  const CompressionErrorFunction fixture = [](const Compressor& c) {
    return c.unbiased() ? 3.0 : 0.75;  // ω = 3; δ = 0.25
  };
  auto multiplier = [&](const Method& m) { return predictIterations(m, 8, 1, 0, fixture); };
  EXPECT_DOUBLE_EQ(multiplier({"bsp", "allreduce:ring", "none"}).multiplier, 1);
  EXPECT_DOUBLE_EQ(multiplier({"bsp", "allreduce:ring", "fp16"}).multiplier, 1);
  const IterationEstimate qsgd = multiplier({"bsp", "allreduce:ring", "qsgd:16"});
  EXPECT_DOUBLE_EQ(qsgd.multiplier, 2.6875);
  EXPECT_NE(qsgd.text.find("Khaled & Richtárik 2020"), std::string::npos) << qsgd.text;
  EXPECT_DOUBLE_EQ(multiplier({"bsp", "ps:2", "topk:0.01,ef"}).multiplier,
                   errorFeedbackMultiplier(0.25, 8, 1));
  EXPECT_DOUBLE_EQ(multiplier({"bsp", "allreduce:ring", "dgc:0.001"}).multiplier,
                   errorFeedbackMultiplier(0.25, 8, 1));
  EXPECT_DOUBLE_EQ(multiplier({"local:4", "allreduce:ring", "none"}).multiplier,
                   consensusMultiplier(3, 8, 1));
  EXPECT_DOUBLE_EQ(multiplier({"asp", "ps:1", "none"}).multiplier, 1);
  EXPECT_DOUBLE_EQ(multiplier({"ssp:4", "ps:1", "none"}).multiplier, (1 + 36.0 / 8) / 2);
  // With momentum, asynchrony is outside the staleness bounds (plain SGD):
  // not covered, said why; synchronous methods keep their multipliers.
  for (const char* sync : {"asp", "ssp:4"}) {
    const IterationEstimate e = predictIterations({sync, "ps:1", "none"}, 8, 1, 0.9, fixture);
    EXPECT_FALSE(e.covered) << sync;
    EXPECT_NE(e.text.find("momentum 0.9"), std::string::npos) << e.text;
    EXPECT_NE(e.text.find("Mitliagkas"), std::string::npos) << e.text;
  }
  EXPECT_DOUBLE_EQ(
      predictIterations({"local:4", "allreduce:ring", "none"}, 8, 1, 0.9, fixture).multiplier,
      consensusMultiplier(3, 8, 1));
  EXPECT_THROW(predictIterations({"asp", "ps:1", "none"}, 8, 1, 1.0, fixture), InvalidArgument);
  EXPECT_THROW(predictIterations({"asp", "ps:1", "none"}, 8, 1, -0.1, fixture), InvalidArgument);
  // accum:K from its declared microBatchesPerStep(): mini-batch SGD with K
  // times the batch, counted in micro-batches: (s + K)/(1 + s).
  const IterationEstimate accum = multiplier({"accum:4", "allreduce:ring", "none"});
  EXPECT_DOUBLE_EQ(accum.multiplier, accumulationMultiplier(4, 1));
  EXPECT_DOUBLE_EQ(accumulationMultiplier(4, 1), 2.5);
  EXPECT_NE(accum.text.find("Ghadimi"), std::string::npos) << accum.text;
  // Pure noise (s large): K micro-batches of b cost as many samples as BSP.
  EXPECT_NEAR(accumulationMultiplier(4, 1e6), 1, 1e-5);
  EXPECT_THROW(accumulationMultiplier(0, 1), InvalidArgument);
  // Two dimensions: the product.
  EXPECT_DOUBLE_EQ(multiplier({"local:4", "allreduce:ring", "qsgd:16"}).multiplier,
                   consensusMultiplier(3, 8, 1) * 2.6875);
  // gTop-k: error feedback, its local selection's δ as the proxy.
  const IterationEstimate gtopk = multiplier({"bsp", "allreduce:ring", "gtopk:0.01"});
  EXPECT_DOUBLE_EQ(gtopk.multiplier, errorFeedbackMultiplier(0.25, 8, 1));
  EXPECT_NE(gtopk.text.find("proxy"), std::string::npos) << gtopk.text;
  for (const char* uncovered : {"sign", "topk:0.01", "randomk:0.01"}) {
    const IterationEstimate e = multiplier({"bsp", "allreduce:ring", uncovered});
    EXPECT_FALSE(e.covered) << uncovered;
    EXPECT_TRUE(std::isnan(e.multiplier)) << uncovered;
    EXPECT_TRUE(e.text.starts_with("no theory: ")) << e.text;
  }
}

TEST(modelIterationTheory, RingSpectralGapAndDpsgdMultiplier) {
  for (const int n : {5, 8, 16, 32}) {
    const double lambda = (1 + 2 * std::cos(2 * std::numbers::pi / n)) / 3;
    const SpectralInfo info = spectralGap(parseTopology("ring", n, 1));
    EXPECT_NEAR(info.gap, 1 - lambda, 1e-9) << "ring of " << n;
    const IterationEstimate e = predictIterations({"bsp", "gossip:ring", "none"}, n, 1, 0,
                                                  [](const Compressor&) { return 0.0; });
    // κ is the spectrum's consensus variance, below the gap's 1/p − 1.
    const double kappa = *consensusVariance(parseTopology("ring", n, 1));
    const double p = 1 - lambda * lambda;
    EXPECT_LT(kappa, 1 / p - 1);
    EXPECT_NEAR(e.multiplier, consensusMultiplier(kappa, n, 1), 1e-9) << e.text;
    EXPECT_LT(e.multiplier, consensusMultiplier(1 / p - 1, n, 1));
    EXPECT_NE(e.text.find("Σλᵢ²/(1 − λᵢ²)"), std::string::npos) << e.text;
  }
  // Without a spectrum (time-varying) the gap's bound stands, said so.
  const IterationEstimate onePeer = predictIterations({"bsp", "gossip:exp:one-peer", "none"}, 8, 1,
                                                      0.9, [](const Compressor&) { return 0.0; });
  EXPECT_NE(onePeer.text.find("the gap's bound"), std::string::npos) << onePeer.text;
}

TEST(modelIterationTheory, WorkloadErrorIsDeterministicAndCapped) {
  const CompressorPtr qsgd = makeCompressor("qsgd:16");
  const CompressionError a = measureWorkloadError(*qsgd, modelWorkload("mlp"), 2);
  const CompressionError b = measureWorkloadError(*qsgd, modelWorkload("mlp"), 2);
  EXPECT_EQ(a.ratio, b.ratio);
  EXPECT_EQ(a.elements, modelWorkload("mlp").parameters);
  const CompressionError big =
      measureWorkloadError(*makeCompressor("fp16"), parameterWorkload(20000000), 1);
  EXPECT_LE(big.elements, kErrorMeasureElements);
  EXPECT_LT(big.ratio, 1e-6);  // fp16 rounds only
}

// On a real vector (the training loop's gradient buffer and bucket plan):
// the sums of one draw per bucket, equal to measureCompressionError's per
// bucket; zero buckets add nothing; a bucket outside the vector is refused.
TEST(modelIterationTheory, BucketErrorSumsThePerBucketDraws) {
  const CompressorPtr topk = makeCompressor("topk:0.1");
  std::vector<float> values = gaussianVector(3000, 5);
  std::fill(values.begin() + 2000, values.end(), 0.0f);  // the third bucket is zero
  std::vector<BucketRange> buckets(3);
  for (size_t b = 0; b < 3; ++b) {
    buckets[b].offset = 1000 * b;
    buckets[b].count = 1000;
  }
  const ErrorSums sums = measureBucketError(*topk, values, buckets, 9);
  double error = 0, norm = 0;
  for (size_t b = 0; b < 2; ++b) {
    const std::span<const float> x(values.data() + 1000 * b, 1000);
    double n = 0;
    for (float v : x) n += double(v) * double(v);
    error += measureCompressionError(*topk, x, {}, 1, 9).ratio * n;
    norm += n;
  }
  EXPECT_EQ(sums.elements, 2000u);
  EXPECT_NEAR(sums.norm, norm, 1e-9 * norm);
  EXPECT_NEAR(sums.error, error, 1e-9 * error);
  EXPECT_GT(sums.error / sums.norm, 0.1);  // Top-10% of a Gaussian keeps well under 90%
  EXPECT_LT(sums.error / sums.norm, 0.9);
  buckets[2].count = 2000;
  EXPECT_THROW(measureBucketError(*topk, values, buckets, 9), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::model
