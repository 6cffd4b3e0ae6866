// Statistical and size properties of the quantisers: wire size, exactness
// of `none`, unbiasedness (QSGD, TernGrad, natural), variance (analytic
// value and the QSGD bound), contraction of the sign family, 1-bit SGD's
// reconstruction values, reproducibility and rank independence of the RNG.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "quant_test_util.h"
#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/onebit.h"
#include "tetrad/compress/qsgd.h"
#include "tetrad/compress/registry.h"

namespace tetrad {
namespace {

using testing::decoded;
using testing::gaussian;

TEST(Quantizers, PacketSizeMatchesBitsPerElement) {
  // Documented payload bits per element; the rest is header (16 bytes) and
  // scalar parameters.
  const std::map<std::string, double> payloadBits = {
      {"none", 32},   {"fp16", 16},       {"bf16", 16},    {"onebit", 1},
      {"sign", 1},    {"efsign", 1},      {"terngrad", 2}, {"qsgd:1", 2},
      {"qsgd:16", 6}, {"qsgd:32767", 16}, {"natural", 9},  {"onebit,ef", 0}};
  for (const auto& [spec, bits] : payloadBits) {
    if (spec == "onebit,ef") continue;
    CompressorPtr c = makeCompressor(spec);
    for (size_t n : {1, 7, 64, 1000, 100003}) {
      CompressorState state;
      std::vector<float> x = gaussian(n, n);
      Packet packet = c->encode(x, state);
      EXPECT_DOUBLE_EQ(8.0 * packet.size() / n, c->bitsPerElement(n)) << spec << " n=" << n;
      // QSGD adds one float norm per bucket of 512 elements.
      const double norms = spec.starts_with("qsgd") ? 32.0 * ((n + 511) / 512) / n : 0.0;
      // Within the header and scalars (<= 32 bytes) plus one byte of padding.
      EXPECT_NEAR(8.0 * packet.size() / n, bits + norms, 8.0 * (32 + 1) / n) << spec << " n=" << n;
    }
  }
}

TEST(Quantizers, NoneIsExact) {
  CompressorPtr none = makeCompressor("none");
  CompressorState state;
  std::vector<float> x = gaussian(1001, 1);
  EXPECT_EQ(decoded(*none, none->encode(x, state), x.size()), x);
  EXPECT_EQ(state.step, 1u);
}

// Mean of T decodings of a fixed x (steps 0..T-1) and the empirical
// E||C(x) - x||^2.
struct Moments {
  std::vector<float> mean;
  double variance = 0;
};

Moments sampleMoments(const Compressor& c, const std::vector<float>& x, int trials, int rank = 0) {
  std::vector<double> sum(x.size(), 0.0);
  double variance = 0;
  CompressorState state;
  state.seed = 42;
  state.rank = rank;
  for (int t = 0; t < trials; ++t) {
    std::vector<float> y = decoded(c, c.encode(x, state), x.size());
    for (size_t i = 0; i < x.size(); ++i) sum[i] += y[i];
    variance += testing::squaredDistance(y, x);
  }
  Moments m;
  for (double s : sum) m.mean.push_back(static_cast<float>(s / trials));
  m.variance = variance / trials;
  return m;
}

// Unbiasedness: E||mean_T - x||^2 = V/T for an unbiased compressor; we allow
// 2x (the statistic is a sum over 512 coordinates, so it concentrates; a
// bias b adds ||b||^2 and fails the check).
void expectUnbiased(const std::string& spec, int trials) {
  CompressorPtr c = makeCompressor(spec);
  EXPECT_TRUE(c->unbiased()) << spec;
  std::vector<float> x = gaussian(512, 5);
  Moments m = sampleMoments(*c, x, trials);
  const double error = testing::squaredDistance(m.mean, x);
  EXPECT_GT(m.variance, 0) << spec;
  EXPECT_LT(error, 2.0 * m.variance / trials)
      << spec << ": ||mean - x||^2 = " << error << ", V/T = " << m.variance / trials;
}

TEST(Quantizers, QsgdIsUnbiased) {
  expectUnbiased("qsgd:1", 4000);
  expectUnbiased("qsgd:16", 4000);
  expectUnbiased("qsgd:4:elias", 2000);
}
TEST(Quantizers, TernGradIsUnbiased) {
  // Without clipping (the default clips at 2.5σ, which biases it).
  expectUnbiased("terngrad:clip=0", 4000);
  expectUnbiased("terngrad:scope=bucket:clip=0", 4000);
}
TEST(Quantizers, NaturalIsUnbiased) {
  expectUnbiased("natural", 4000);
}

TEST(Quantizers, UnbiasednessCheckDetectsABiasedCompressor) {
  // The same statistic on TernGrad with clipping (biased towards the clipped
  // tensor) must fail, or the checks above prove nothing.
  CompressorPtr c = makeCompressor("terngrad:clip=1");
  EXPECT_FALSE(c->unbiased());
  std::vector<float> x = gaussian(512, 5);
  Moments m = sampleMoments(*c, x, 4000);
  EXPECT_GT(testing::squaredDistance(m.mean, x), 2.0 * m.variance / 4000);
}

TEST(Quantizers, QsgdVarianceMatchesTheoryAndTheBound) {
  const std::vector<float> x = gaussian(256, 9);
  const double norm2 = testing::squaredNorm(x), norm = std::sqrt(norm2);
  const double d = static_cast<double>(x.size());
  for (int s : {1, 2, 8, 64}) {
    // Analytic: sum over i of (norm/s)^2 p_i (1 - p_i), p_i = frac(|x_i| s / norm).
    double analytic = 0;
    for (float v : x) {
      double r = std::fabs(v) * s / norm, p = r - std::floor(r);
      analytic += (norm / s) * (norm / s) * p * (1 - p);
    }
    const double bound = std::min(d / (s * s), std::sqrt(d) / s) * norm2;
    Moments m = sampleMoments(*makeCompressor("qsgd:" + std::to_string(s)), x, 2000);
    EXPECT_NEAR(m.variance, analytic, 0.06 * analytic) << "s=" << s;
    EXPECT_LE(m.variance, bound) << "s=" << s;
  }
}

TEST(Quantizers, TernGradAndNaturalVarianceMatchTheory) {
  const std::vector<float> x = gaussian(256, 11);
  double maxAbs = 0;
  for (float v : x) maxAbs = std::max(maxAbs, static_cast<double>(std::fabs(v)));
  double ternAnalytic = 0, naturalAnalytic = 0;
  for (float v : x) {
    double a = std::fabs(v);
    ternAnalytic += maxAbs * a - a * a;
    double low = std::exp2(std::floor(std::log2(a)));
    naturalAnalytic += (2 * low - a) * (a - low);
  }
  Moments tern = sampleMoments(*makeCompressor("terngrad:clip=0"), x, 2000);
  EXPECT_NEAR(tern.variance, ternAnalytic, 0.05 * ternAnalytic);
  Moments natural = sampleMoments(*makeCompressor("natural"), x, 2000);
  EXPECT_NEAR(natural.variance, naturalAnalytic, 0.06 * naturalAnalytic);
  EXPECT_LE(natural.variance, testing::squaredNorm(x) / 8.0);  // omega = 1/8
}

TEST(Quantizers, TernGradClippingLimitsTheScale) {
  std::vector<float> x = gaussian(4096, 3);
  x[17] = 100.0f;  // an outlier far beyond 2.5 sigma
  CompressorPtr c = makeCompressor("terngrad:clip=2.5");
  CompressorState state;
  std::vector<float> y = decoded(*c, c->encode(x, state), x.size());
  float largest = 0;
  for (float v : y) largest = std::max(largest, std::fabs(v));
  EXPECT_GT(largest, 1.0f);
  EXPECT_LT(largest, 5.0f);  // 2.5 sigma with sigma ~ 1.8 (the outlier inflates it)
  for (float v : y) EXPECT_TRUE(v == 0.0f || std::fabs(v) == largest);
}

// δ of the scaled sign (Karimireddy et al. 2019, Lemma 8): ||x||_1^2/(d ||x||_2^2).
double signDelta(const std::vector<float>& x) {
  double l1 = testing::l1Norm(x);
  return l1 * l1 / (x.size() * testing::squaredNorm(x));
}

TEST(Quantizers, SignFamilyIsAContraction) {
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<float> x = gaussian(1000, seed);
    for (float& v : x) v = v * v * v;  // heavier tails: smaller δ
    const double delta = signDelta(x), norm2 = testing::squaredNorm(x);
    ASSERT_GT(delta, 0.0);
    for (const char* spec : {"sign", "efsign", "onebit", "onebit:col"}) {
      CompressorPtr c = makeCompressor(spec);
      CompressorState state;
      state.shape = {40, 25};
      std::vector<float> y = decoded(*c, c->encode(x, state), x.size());
      const double error = testing::squaredDistance(x, y);
      EXPECT_LE(error, (1 - delta) * norm2 * (1 + 1e-5)) << spec << " seed " << seed;
      if (std::string(spec) == "sign" || std::string(spec) == "efsign") {
        // For the scaled sign the bound holds with equality.
        EXPECT_NEAR(error, (1 - delta) * norm2, 1e-4 * norm2) << spec;
      }
    }
  }
}

TEST(Quantizers, OneBitReconstructsWithGroupMeans) {
  std::vector<float> x = {3, -1, 1, -3, 2, -2};  // shape [3, 2]: columns {3,1,2}, {-1,-3,-2}
  CompressorState flat;
  CompressorPtr tensor = makeCompressor("onebit");
  std::vector<float> y = decoded(*tensor, tensor->encode(x, flat), x.size());
  EXPECT_EQ(y, (std::vector<float>{2, -2, 2, -2, 2, -2}));
  // Residual (built-in error feedback) is x - y.
  EXPECT_EQ(tensor->errorFeedbackResidual(flat), (std::vector<float>{1, 1, -1, -1, 0, 0}));

  std::vector<float> z = {3, -1, -1, 5, 2, -3};  // columns {3,-1,2}, {-1,5,-3}
  CompressorState matrix;
  matrix.shape = {3, 2};
  CompressorPtr col = makeCompressor("onebit:col");
  std::vector<float> w = decoded(*col, col->encode(z, matrix), z.size());
  EXPECT_EQ(w, (std::vector<float>{2.5f, -2, -1, 5, 2.5f, -2}));
  matrix.shape = {4, 2};
  EXPECT_THROW(col->encode(z, matrix), InvalidArgument);
}

TEST(Quantizers, RandomStreamsAreReproducibleAndRankIndependent) {
  std::vector<float> x = gaussian(10000, 4);
  for (const char* spec : {"qsgd:4", "terngrad", "natural"}) {
    CompressorPtr c = makeCompressor(spec);
    auto packetAt = [&](int rank, uint64_t step) {
      CompressorState state;
      state.seed = 99;
      state.rank = rank;
      state.step = step;
      return c->encode(x, state).bytes;
    };
    EXPECT_EQ(packetAt(0, 5), packetAt(0, 5)) << spec;
    EXPECT_NE(packetAt(0, 5), packetAt(1, 5)) << spec;
    EXPECT_NE(packetAt(0, 5), packetAt(0, 6)) << spec;
  }
  // Across ranks the rounding decisions are uncorrelated: the difference of
  // two ranks' QSGD decodings has twice one rank's variance.
  CompressorPtr qsgd = makeCompressor("qsgd:2");
  Moments a = sampleMoments(*qsgd, x, 50, 0);
  CompressorState s0, s1;
  s0.seed = s1.seed = 42;
  s1.rank = 1;
  double cross = 0;
  for (int t = 0; t < 50; ++t) {
    std::vector<float> y0 = decoded(*qsgd, qsgd->encode(x, s0), x.size());
    std::vector<float> y1 = decoded(*qsgd, qsgd->encode(x, s1), x.size());
    cross += testing::squaredDistance(y0, y1) / 50;
  }
  EXPECT_NEAR(cross, 2 * a.variance, 0.05 * 2 * a.variance);
}

// The element-wise definitions (compression.md), written out with the
// scalar stream: every code of the packet, on sizes that end in whole
// 4096-element blocks, in 16-element vector groups and in a scalar tail, so
// that the vector kernels and the scalar loop draw the same numbers.
// The scale (max|x|, ‖x‖₂ per bucket) is read from the packet: its own tests
// are the statistical ones above and paper_definitions_test.cc.
TEST(Quantizers, TernGradAndQsgdCodesFollowTheirDefinitions) {
  for (size_t n : {size_t{5}, size_t{4096}, size_t{4096 + 37}, size_t{2 * 4096 + 48 + 5}}) {
    std::vector<float> x = gaussian(n, 11 + n);
    CompressorState state;
    state.seed = 7;
    state.rank = 3;
    state.step = 12;
    const auto unpack = [&](const Packet& packet, size_t scalarBytes, unsigned bits) {
      std::vector<uint16_t> codes(n);
      unpackCodes(ConstBytes(packet.bytes).subspan(kPacketHeaderBytes + scalarBytes), bits, codes);
      return codes;
    };
    const auto uniformAt = [&](PacketKind kind, size_t i) {
      const CounterRng rng(state.seed, state.rank, state.step, static_cast<uint64_t>(kind));
      const CounterRng::Key key = rng.blockKey(i / kRngBlock);
      return CounterRng::uniform(CounterRng::mixBits(key, static_cast<uint32_t>(i % kRngBlock)));
    };

    // One tensor: u32 count 1, u64 size n, float s, then the codes.
    CompressorState ternState = state;
    const Packet tern = makeCompressor("terngrad")->encode(x, ternState);
    float s = 0;
    std::memcpy(&s, tern.bytes.data() + kPacketHeaderBytes + 12, sizeof(float));
    const std::vector<uint16_t> ternCodes = unpack(tern, 16, 2);
    for (size_t i = 0; i < n; ++i) {
      const bool send = uniformAt(PacketKind::kTernGrad, i) * s < std::min(std::fabs(x[i]), s);
      const uint16_t expected = send ? (std::signbit(x[i]) ? 2 : 1) : 0;
      ASSERT_EQ(ternCodes[i], expected) << "terngrad n=" << n << " i=" << i;
    }

    // u32 levels, u32 bucket size, a float norm per bucket of 512, the codes.
    CompressorState qsgdState = state;
    const Packet qsgd = makeCompressor("qsgd:16")->encode(x, qsgdState);
    const size_t buckets = (n + 511) / 512;
    std::vector<float> norms(buckets);
    std::memcpy(norms.data(), qsgd.bytes.data() + kPacketHeaderBytes + 8, 4 * buckets);
    const std::vector<uint16_t> qsgdCodes = unpack(qsgd, 8 + 4 * buckets, 6);
    for (size_t i = 0; i < n; ++i) {
      const float scale = 16.0f / norms[i / 512];
      const float r = std::fabs(x[i]) * scale;
      const int low = static_cast<int>(r);
      const bool up = uniformAt(PacketKind::kQsgd, i) < r - static_cast<float>(low);
      const int level = std::min(low + (up ? 1 : 0), 16);
      const int expected = 16 + (std::signbit(x[i]) ? -level : level);
      ASSERT_EQ(qsgdCodes[i], expected) << "qsgd n=" << n << " i=" << i;
    }
  }
}

TEST(Quantizers, NonFiniteInputPropagatesAsNonFinite) {
  std::vector<float> x = gaussian(100, 1);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  for (const char* spec : {"qsgd:4", "terngrad", "sign", "efsign", "onebit", "fp16", "bf16"}) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state;
    std::vector<float> y = decoded(*c, c->encode(x, state), x.size());
    bool anyNonFinite = false;
    for (float v : y) anyNonFinite = anyNonFinite || !std::isfinite(v);
    EXPECT_TRUE(anyNonFinite) << spec;
  }
}

TEST(Quantizers, EliasCodingIsSmallerForFewLevels) {
  std::vector<float> x = gaussian(100000, 8);
  CompressorState s1, s2;
  size_t fixed = makeCompressor("qsgd:2")->encode(x, s1).size();
  size_t elias = makeCompressor("qsgd:2:elias")->encode(x, s2).size();
  EXPECT_LT(elias, fixed);
}

}  // namespace
}  // namespace tetrad
