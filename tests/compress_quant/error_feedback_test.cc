// Error feedback: over T steps, the transmitted tensors plus the final
// residual sum to the inputs (for the ",ef" wrapper around every compressor
// that accepts it, and for the built-in EF of onebit and efsign); the
// wrapper keeps the inner packet format; EF makes a biased compressor's
// long-run average converge.
#include "tetrad/compress/error_feedback.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "quant_test_util.h"
#include "tetrad/compress/onebit.h"

namespace tetrad {
namespace {

void expectIdentity(const std::string& spec, size_t n, int steps) {
  CompressorPtr c = makeCompressor(spec);
  CompressorState state;
  state.seed = 3;
  state.shape = {static_cast<int64_t>(n / 10), 10};
  std::vector<double> inputs(n, 0.0), sent(n, 0.0);
  for (int t = 0; t < steps; ++t) {
    std::vector<float> x = testing::gaussian(n, 100 + t);
    for (size_t i = 0; i < n; ++i) inputs[i] += x[i];
    std::vector<float> y = testing::decoded(*c, c->encode(x, state), n);
    for (size_t i = 0; i < n; ++i) sent[i] += y[i];
  }
  // The true residual (efsign and onebit store p and a pending correction).
  const std::vector<float> residual = c->errorFeedbackResidual(state);
  ASSERT_EQ(residual.size(), n);
  double worst = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    worst = std::max(worst, std::fabs(sent[i] + residual[i] - inputs[i]));
    // Float rounding scales with the largest magnitude involved (for
    // non-contractive compressors such as qsgd:1 the residual itself grows).
    scale = std::max({scale, std::fabs(inputs[i]), std::fabs(sent[i]),
                      std::fabs(static_cast<double>(residual[i]))});
  }
  // Float rounding only: a few ulps of the running magnitudes per step.
  EXPECT_LT(worst, 1e-5 * steps * std::max(1.0, scale)) << spec;
  EXPECT_EQ(state.step, static_cast<uint64_t>(steps)) << spec;
}

TEST(ErrorFeedback, SentPlusResidualEqualsInputs) {
  for (const std::string& spec : testing::allSpecs()) {
    CompressorPtr c = makeCompressor(spec);
    if (c->aggregation() == Aggregation::kCustom) continue;  // local encode/decode only below
    if (spec.ends_with(",ef")) expectIdentity(spec, 1000, 30);
  }
  expectIdentity("onebit", 1000, 30);
  expectIdentity("onebit:col", 1000, 30);
  expectIdentity("efsign", 1000, 30);
}

TEST(ErrorFeedback, DeferredResidualIsInputMinusDecodedPacket) {
  // efsign and onebit store p and the pending reconstruction; the helper
  // gives p − C(p), which is exactly what one step fails to transmit.
  const size_t n = 600;
  for (const char* spec : {"efsign", "onebit", "onebit:col"}) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state;
    state.shape = {60, 10};
    EXPECT_TRUE(c->errorFeedbackResidual(state).empty()) << spec;
    std::vector<float> e(n, 0.0f);
    for (int t = 0; t < 4; ++t) {
      std::vector<float> x = testing::gaussian(n, 40 + t);
      std::vector<float> p(n);
      for (size_t i = 0; i < n; ++i) p[i] = x[i] + e[i];
      std::vector<float> y = testing::decoded(*c, c->encode(x, state), n);
      // The stored buffer is the uncorrected p, not the residual.
      EXPECT_EQ(state.buffers.at("residual"), p) << spec << " step " << t;
      e = c->errorFeedbackResidual(state);
      ASSERT_EQ(e.size(), n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(e[i], p[i] - y[i]) << spec << " " << i;
    }
  }
  // Pending pairs that do not fit the tensor are refused with context.
  CompressorPtr col = makeCompressor("onebit:col");
  CompressorState bad;
  bad.shape = {60, 10};
  col->encode(testing::gaussian(n, 1), bad);
  bad.buffers["residual_pending"].resize(14);  // 7 columns do not divide 600
  EXPECT_THROW(col->errorFeedbackResidual(bad), InvalidArgument);
  EXPECT_THROW(col->encode(testing::gaussian(n, 2), bad), InvalidArgument);
}

TEST(ErrorFeedback, WrapperKeepsTheInnerFormat) {
  CompressorPtr plain = makeCompressor("qsgd:4");
  CompressorPtr wrapped = makeCompressor("qsgd:4,ef");
  EXPECT_EQ(wrapped->spec(), "qsgd:4,ef");
  EXPECT_EQ(wrapped->aggregation(), plain->aggregation());
  EXPECT_EQ(wrapped->bitsPerElement(1000), plain->bitsPerElement(1000));
  EXPECT_FALSE(wrapped->unbiased());
  std::vector<float> x = testing::gaussian(300, 1);
  CompressorState a, b;
  a.seed = b.seed = 5;
  // First step: zero residual, so the packets are identical.
  EXPECT_EQ(wrapped->encode(x, a).bytes, plain->encode(x, b).bytes);
  EXPECT_EQ(a.step, 1u);
}

TEST(ErrorFeedback, FixesTheBiasOfScaledSignOnAverage) {
  // A constant input: without EF, sign compression sends scale·sign(x) every
  // step (a fixed bias); with EF the average of what is sent tends to x.
  std::vector<float> x = {0.1f, 1.0f, -0.5f, 2.0f, -3.0f, 0.01f};
  const int steps = 2000;
  for (const char* spec : {"efsign", "sign,ef"}) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state;
    std::vector<double> sum(x.size(), 0.0);
    for (int t = 0; t < steps; ++t) {
      std::vector<float> y = testing::decoded(*c, c->encode(x, state), x.size());
      for (size_t i = 0; i < x.size(); ++i) sum[i] += y[i];
    }
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(sum[i] / steps, x[i], 0.01) << spec << i;
  }
}

}  // namespace
}  // namespace tetrad
