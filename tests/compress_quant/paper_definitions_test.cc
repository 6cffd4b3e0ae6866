// Each method as its paper runs it: TernGrad with one scale per tensor and
// clipping at 2.5σ per tensor (Wen et al. 2017), QSGD with one norm per bucket
// of d = 512 elements (Alistarh et al. 2017, §5) and Signum's momentum before
// the sign (Bernstein et al. 2018, Alg. 3), each against a single-process
// reference of the paper's definition written out here, on fused buckets whose
// tensors end in whole 4096-element blocks, 16-element vector groups and
// scalar tails. The stochastic codes are checked one by one with the scalar
// stream (as Quantizers.TernGradAndQsgdCodesFollowTheirDefinitions does).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

#include "quant_test_util.h"
#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/registry.h"

namespace tetrad {
namespace {

using testing::decoded;
using testing::gaussian;

// A fused bucket: a scalar, tensors ending in a tail of 5, in whole vector
// groups, in whole blocks, one crossing two block boundaries, a constant one.
const std::vector<std::vector<int64_t>> kLayout = {{5},  {4096 + 37}, {8, 8},  {1},
                                                   {16}, {5, 1649},   {64, 64}};

std::vector<float> bucketInput(const std::vector<std::vector<int64_t>>& layout, uint64_t seed) {
  size_t n = 0;
  for (const auto& shape : layout) {
    n += static_cast<size_t>(
        std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>()));
  }
  std::vector<float> x = gaussian(n, seed);
  // Outliers far beyond 2.5σ in two tensors, so that clipping matters.
  x[5 + 100] = 40.0f;
  x[n - 7] = -25.0f;
  // Tensor 4 (16 elements after 5 + 4133 + 64 + 1) is constant: σ = 0.
  std::fill(x.begin() + 4203, x.begin() + 4203 + 16, 0.25f);
  return x;
}

CompressorState stateFor(const std::vector<std::vector<int64_t>>& layout) {
  CompressorState state;
  state.layout = layout;
  state.seed = 17;
  state.rank = 2;
  state.step = 9;
  return state;
}

float uniformAt(const CompressorState& state, PacketKind kind, size_t i) {
  const CounterRng rng(state.seed, state.rank, state.step, static_cast<uint64_t>(kind));
  const CounterRng::Key key = rng.blockKey(i / kRngBlock);
  return CounterRng::uniform(CounterRng::mixBits(key, static_cast<uint32_t>(i % kRngBlock)));
}

template <typename T>
T readAt(const Packet& packet, size_t offset) {
  T value{};
  std::memcpy(&value, packet.bytes.data() + offset, sizeof(T));
  return value;
}

std::vector<uint16_t> codesAt(const Packet& packet, size_t offset, size_t n, unsigned bits) {
  std::vector<uint16_t> codes(n);
  unpackCodes(ConstBytes(packet.bytes).subspan(offset), bits, codes);
  return codes;
}

// TernGrad's scale of one tensor, from the paper: s = max|clip(x)| with
// clip(x) = x limited to ±c·σ, σ = sqrt(mean((x − mean)²)) (two passes, in
// double); σ = 0 is not clipped (terngrad.h).
double ternScale(std::span<const float> x, double clip) {
  double top = 0, mean = 0, deviation = 0;
  for (float v : x) top = std::max(top, std::fabs(static_cast<double>(v)));
  if (clip <= 0) return top;
  for (float v : x) mean += v;
  mean /= static_cast<double>(x.size());
  for (float v : x) deviation += (v - mean) * (v - mean);
  const double sigma = std::sqrt(deviation / static_cast<double>(x.size()));
  return sigma > 0 ? std::min(top, clip * sigma) : top;
}

// Checks a TernGrad packet of x against the definition with the given tensor
// sizes: its sizes, scales (to float rounding), every code and the decoding.
void expectTernGrad(const std::string& spec, const std::vector<float>& x,
                    const std::vector<size_t>& sizes, double clip, const CompressorState& start) {
  CompressorPtr c = makeCompressor(spec);
  CompressorState state = start;
  const Packet packet = c->encode(x, state);
  const size_t n = x.size(), tensors = sizes.size();
  ASSERT_EQ(packet.size(), 16 + 4 + 12 * tensors + (2 * n + 7) / 8) << spec;
  EXPECT_DOUBLE_EQ(c->bucketBitsPerElement(start, n), 8.0 * packet.size() / n) << spec;
  ASSERT_EQ(readAt<uint32_t>(packet, 16), tensors) << spec;
  const std::vector<uint16_t> codes = codesAt(packet, 20 + 12 * tensors, n, 2);
  const std::vector<float> y = decoded(*c, packet, n);
  size_t begin = 0;
  for (size_t t = 0; t < tensors; ++t) {
    ASSERT_EQ(readAt<uint64_t>(packet, 20 + 8 * t), sizes[t]) << spec << " tensor " << t;
    const float s = readAt<float>(packet, 20 + 8 * tensors + 4 * t);
    const double reference = ternScale(std::span(x).subspan(begin, sizes[t]), clip);
    EXPECT_NEAR(s, reference, 1e-5 * reference) << spec << " tensor " << t;
    for (size_t i = begin; i < begin + sizes[t]; ++i) {
      const bool send =
          uniformAt(start, PacketKind::kTernGrad, i) * s < std::min(std::fabs(x[i]), s);
      const uint16_t expected = send ? (std::signbit(x[i]) ? 2 : 1) : 0;
      ASSERT_EQ(codes[i], expected) << spec << " tensor " << t << " element " << i;
      ASSERT_EQ(y[i], expected == 0 ? 0.0f : (expected == 1 ? s : -s)) << spec << " i=" << i;
    }
    begin += sizes[t];
  }
}

std::vector<size_t> sizesOf(const std::vector<std::vector<int64_t>>& layout) {
  std::vector<size_t> sizes;
  for (const auto& shape : layout) {
    sizes.push_back(static_cast<size_t>(
        std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>())));
  }
  return sizes;
}

TEST(PaperDefinitions, TernGradScalesAndClipsEachTensor) {
  const std::vector<float> x = bucketInput(kLayout, 3);
  const CompressorState state = stateFor(kLayout);
  const std::vector<size_t> sizes = sizesOf(kLayout);
  expectTernGrad("terngrad", x, sizes, 2.5, state);
  expectTernGrad("terngrad:clip=1.5", x, sizes, 1.5, state);
  expectTernGrad("terngrad:clip=0", x, sizes, 0, state);
  // The ablations: one scale for the bucket, clipped at 2.5σ of the bucket or not.
  expectTernGrad("terngrad:scope=bucket", x, {x.size()}, 2.5, state);
  expectTernGrad("terngrad:scope=bucket:clip=0", x, {x.size()}, 0, state);
  // Without a layout the bucket is one tensor.
  CompressorState flat = state;
  flat.layout.clear();
  expectTernGrad("terngrad", x, {x.size()}, 2.5, flat);

  // The clipping did something: the tensor with the outlier has s < max|x|,
  // and the constant tensor (σ = 0) keeps its value, which every element sends.
  CompressorPtr c = makeCompressor("terngrad");
  CompressorState s = state;
  const std::vector<float> y = decoded(*c, c->encode(x, s), x.size());
  EXPECT_LT(std::fabs(y[5 + 100]), 5.0f);
  for (size_t i = 4203; i < 4203 + 16; ++i) EXPECT_EQ(y[i], 0.25f) << i;
}

TEST(PaperDefinitions, TernGradPerTensorScaleIsUnbiasedWithoutClipping) {
  CompressorPtr c = makeCompressor("terngrad:clip=0");
  EXPECT_TRUE(c->unbiased());
  EXPECT_FALSE(makeCompressor("terngrad")->unbiased());
  // Two tensors of very different magnitudes: per-tensor scales keep the
  // small one's codes informative (its s is its own max), and the mean of
  // many decodings converges to x.
  std::vector<float> x = gaussian(600, 4);
  for (size_t i = 0; i < 200; ++i) x[i] *= 1e-3f;
  CompressorState state;
  state.layout = {{200}, {400}};
  std::vector<double> sum(x.size(), 0.0);
  double variance = 0;
  const int trials = 3000;
  for (int t = 0; t < trials; ++t) {
    const std::vector<float> y = decoded(*c, c->encode(x, state), x.size());
    for (size_t i = 0; i < x.size(); ++i) sum[i] += y[i];
    variance += testing::squaredDistance(y, x) / trials;
  }
  double error = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = sum[i] / trials - x[i];
    error += d * d;
  }
  EXPECT_LT(error, 2.0 * variance / trials);
}

// QSGD's definition per bucket v of d elements: ‖v‖₂·sign(x)·l/s, l the
// stochastic rounding of |x|·s/‖v‖₂ with the scalar stream.
void expectQsgd(int s, size_t d, bool elias, const std::vector<float>& x,
                const CompressorState& start) {
  std::string spec = "qsgd:" + std::to_string(s);
  if (elias) spec += ":elias";
  if (d != 512) spec += ":bucket=" + std::to_string(d);
  CompressorPtr c = makeCompressor(spec);
  EXPECT_EQ(c->spec(), spec);
  CompressorState state = start;
  const Packet packet = c->encode(x, state);
  const size_t n = x.size(), buckets = (n + d - 1) / d;
  const unsigned bits = static_cast<unsigned>(std::bit_width(static_cast<unsigned>(2 * s)));
  const size_t codesAtOffset = 24 + 4 * buckets;
  ASSERT_EQ(readAt<uint32_t>(packet, 16), static_cast<uint32_t>(s)) << spec;
  ASSERT_EQ(readAt<uint32_t>(packet, 20), d) << spec;
  if (!elias) {
    ASSERT_EQ(packet.size(), codesAtOffset + packedBytes(n, bits)) << spec;
    EXPECT_DOUBLE_EQ(c->bitsPerElement(n), 8.0 * packet.size() / n) << spec;
  }
  std::vector<int> levels(n);
  std::vector<float> norms(buckets);
  for (size_t b = 0; b < buckets; ++b) {
    double reference = 0;
    for (size_t i = b * d; i < std::min(n, (b + 1) * d); ++i) reference += double(x[i]) * x[i];
    reference = std::sqrt(reference);
    norms[b] = readAt<float>(packet, 24 + 4 * b);
    ASSERT_NEAR(norms[b], reference, 1e-5 * reference) << spec << " bucket " << b;
    const float scale = static_cast<float>(s) / norms[b];
    for (size_t i = b * d; i < std::min(n, (b + 1) * d); ++i) {
      const float r = std::fabs(x[i]) * scale;
      const int low = static_cast<int>(r);
      const bool up = uniformAt(start, PacketKind::kQsgd, i) < r - static_cast<float>(low);
      const int level = std::min(low + (up ? 1 : 0), s);
      levels[i] = std::signbit(x[i]) ? -level : level;
    }
  }
  if (!elias) {
    const std::vector<uint16_t> codes = codesAt(packet, codesAtOffset, n, bits);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(codes[i], s + levels[i]) << spec << " i=" << i;
  }
  const std::vector<float> y = decoded(*c, packet, n);
  for (size_t i = 0; i < n; ++i) {
    const float unit = norms[i / d] / static_cast<float>(s);
    ASSERT_EQ(y[i], unit * static_cast<float>(levels[i])) << spec << " i=" << i;
  }
}

TEST(PaperDefinitions, QsgdNormsPerBucketOfElements) {
  CompressorState state = stateFor({});
  for (size_t n : {size_t{5}, size_t{512}, size_t{4096 + 37}, size_t{2 * 4096 + 48 + 5}}) {
    const std::vector<float> x = gaussian(n, 100 + n);
    for (size_t d : {size_t{512}, size_t{100}, size_t{7}, size_t{5000}, size_t{1}}) {
      expectQsgd(16, d, false, x, state);
      expectQsgd(4, d, true, x, state);
    }
    expectQsgd(1, 512, false, x, state);
  }
  // The default is the paper's 512: a bucket's norm ignores its neighbours.
  EXPECT_EQ(makeCompressor("qsgd:16")->spec(), "qsgd:16");
  EXPECT_EQ(makeCompressor("qsgd:16:bucket=512")->spec(), "qsgd:16");
  EXPECT_EQ(makeCompressor("qsgd:4:bucket=64:elias")->spec(), "qsgd:4:elias:bucket=64");
}

// Signum (Bernstein et al. 2018, Alg. 3): m ← β·m + (1 − β)·g, the packet is
// sign(m) with the scale ‖m‖₁/d, over the whole bucket whatever its layout.
TEST(PaperDefinitions, SignumSendsTheSignOfItsMomentum) {
  const double beta = 0.9;
  CompressorPtr c = makeCompressor("sign:momentum=0.9");
  CompressorState state = stateFor(kLayout);
  const size_t n = bucketInput(kLayout, 1).size();
  std::vector<float> m(n, 0.0f);
  for (int step = 0; step < 4; ++step) {
    const std::vector<float> g = bucketInput(kLayout, 50 + step);
    const float keep = static_cast<float>(beta), take = static_cast<float>(1 - beta);
    for (size_t i = 0; i < n; ++i) m[i] = keep * m[i] + take * g[i];
    const std::vector<float> y = decoded(*c, c->encode(g, state), n);
    const std::vector<float>& kept = state.buffers.at("momentum");
    ASSERT_EQ(kept.size(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(kept[i], m[i], 1e-6f * (1 + std::fabs(m[i]))) << "step " << step << " i=" << i;
    }
    // The signs are the kept momentum's (the reference's up to its rounding).
    const double scale = testing::l1Norm(m) / static_cast<double>(n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(y[i], std::signbit(kept[i]) ? -scale : scale, 1e-5 * scale)
          << "step " << step << " i=" << i;
    }
  }
}

bool rejects(const Compressor& c, ConstBytes packet, size_t n) {
  std::vector<float> out(n, 0.0f);
  try {
    c.decodeAdd(packet, out);
  } catch (const ProtocolError&) {
    return true;
  }
  return false;
}

template <typename T>
ByteBuffer withValue(ByteBuffer bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
  return bytes;
}

TEST(PaperDefinitions, DecodersRejectTruncatedPacketsAndWrongScaleCounts) {
  const std::vector<float> x = bucketInput(kLayout, 8);
  const size_t n = x.size(), tensors = kLayout.size();
  CompressorState state = stateFor(kLayout);
  CompressorPtr tern = makeCompressor("terngrad");
  const ByteBuffer packet = tern->encode(x, state).bytes;
  ASSERT_FALSE(rejects(*tern, packet, n));
  for (size_t len = 0; len < 20 + 12 * tensors + 64; ++len) {
    EXPECT_TRUE(rejects(*tern, ConstBytes(packet).first(len), n)) << "truncated to " << len;
  }
  EXPECT_TRUE(rejects(*tern, ConstBytes(packet).first(packet.size() - 1), n));
  // Tensor counts that do not describe the packet.
  for (uint32_t t : {0u, 1u, 6u, 8u, 0xffffffffu}) {
    EXPECT_TRUE(rejects(*tern, withValue<uint32_t>(packet, 16, t), n)) << t << " tensors";
  }
  // Sizes that do not add up to n, an empty tensor, a size past n.
  EXPECT_TRUE(rejects(*tern, withValue<uint64_t>(packet, 20, 4), n));
  EXPECT_TRUE(rejects(*tern, withValue<uint64_t>(packet, 20, 0), n));
  EXPECT_TRUE(rejects(*tern, withValue<uint64_t>(packet, 20, uint64_t{1} << 63), n));
  EXPECT_TRUE(rejects(*tern, withValue<uint64_t>(packet, 28, 4096 + 38), n));
  // Moving elements between two tensors keeps the total: accepted, as a
  // different (valid) packet.
  ByteBuffer moved = withValue<uint64_t>(packet, 20, 6);
  EXPECT_FALSE(rejects(*tern, withValue<uint64_t>(moved, 28, 4096 + 36), n));
  // A version-1 packet (one scale, no tensor table) is refused.
  EXPECT_TRUE(rejects(*tern, withValue<uint8_t>(packet, 1, 1), n));

  for (const char* spec : {"qsgd:16", "qsgd:4:elias"}) {
    CompressorPtr q = makeCompressor(spec);
    CompressorState qs = stateFor({});
    const ByteBuffer bytes = q->encode(x, qs).bytes;
    const size_t buckets = (n + 511) / 512;
    ASSERT_FALSE(rejects(*q, bytes, n)) << spec;
    for (size_t len = 0; len < 24 + 4 * buckets + 64; ++len) {
      EXPECT_TRUE(rejects(*q, ConstBytes(bytes).first(len), n)) << spec << " truncated to " << len;
    }
    EXPECT_TRUE(rejects(*q, ConstBytes(bytes).first(bytes.size() - 1), n)) << spec;
    // Another bucket size (so another norm count) than the decoder's.
    for (uint32_t d : {0u, 256u, 513u, 0xffffffffu}) {
      EXPECT_TRUE(rejects(*q, withValue<uint32_t>(bytes, 20, d), n)) << spec << " d=" << d;
    }
    // One norm fewer: the codes start 4 bytes early and the packet is short.
    ByteBuffer fewer = bytes;
    fewer.erase(fewer.begin() + 24, fewer.begin() + 28);
    EXPECT_TRUE(rejects(*q, fewer, n)) << spec;
    EXPECT_TRUE(rejects(*q, withValue<uint8_t>(bytes, 1, 1), n)) << spec;
  }
  // A packet of buckets of 256 elements is not one of buckets of 512.
  CompressorState qs = stateFor({});
  const ByteBuffer other = makeCompressor("qsgd:16:bucket=256")->encode(x, qs).bytes;
  EXPECT_TRUE(rejects(*makeCompressor("qsgd:16"), other, n));
}

std::string errorOf(const std::string& spec) {
  try {
    makeCompressor(spec);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(PaperDefinitions, BadSpecsNameTheirProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"qsgd:16:bucket=0",
       "bucket (elements per norm) must be an integer in [1, 4294967295], got '0'"},
      {"qsgd:16:bucket=-4", "got '-4'"},
      {"qsgd:16:bucket=2.5", "got '2.5'"},
      {"qsgd:16:bucket=", "got ''"},
      {"qsgd:16:bucket=4294967296", "got '4294967296'"},
      {"qsgd:16:bucket=8:bucket=16", "'bucket' given twice"},
      {"sign:momentum=1.5", "momentum must be a number in (0, 1), got '1.5'"},
      {"sign:momentum=1", "got '1'"},
      {"sign:momentum=0", "got '0'"},
      {"sign:momentum=nan", "got 'nan'"},
      {"terngrad:clip=-1", "clip must be a number in [0, inf), got '-1'"},
      {"terngrad:clip=inf", "got 'inf'"},
      {"terngrad:scope=layer", "scope must be 'tensor' or 'bucket', got 'layer'"},
      {"terngrad:scope=bucket:clip=1:x", "takes 0 to 2 parameters"},
  };
  for (const auto& [spec, expected] : cases) {
    const std::string message = errorOf(spec);
    EXPECT_NE(message.find("invalid compressor '" + spec + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << spec << " -> " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(makeCompressor("terngrad:scope=tensor:clip=2.5")->spec(), "terngrad");
  EXPECT_EQ(makeCompressor("terngrad:clip=0:scope=bucket")->spec(), "terngrad:scope=bucket:clip=0");
}

}  // namespace
}  // namespace tetrad
