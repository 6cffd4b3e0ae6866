// 16-bit input (compressor.h's HalfInput, the Python hook's float16 and
// bfloat16 buckets): encode(HalfInput) and encodeSummable(HalfInput) are bit
// for bit encode() and encodeSummable() of the widened float32 values, with
// the same state afterwards, for every registered compressor, its ",ef" form,
// DGC with and without clipping and QSGD with buckets that do and do not
// tile its packing blocks, over several steps.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "quant_test_util.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/float16.h"

namespace tetrad {
namespace {

// A matrix (powersgd compresses, onebit:col has columns) of more than two of
// QSGD's packing blocks (4096 elements), the last one partial.
const std::vector<int64_t> kShape = {97, 101};
constexpr size_t kCount = 97 * 101;
constexpr int kSteps = 3;

CompressorState freshState() {
  CompressorState state;
  state.shape = kShape;
  state.seed = 91;
  state.rank = 1;
  return state;
}

// Step t's gradient as 16-bit bytes of `format`, and the same values widened.
struct HalfGradient {
  std::vector<std::byte> bytes;
  std::vector<float> wide;
};

HalfGradient halfGradient(HalfFormat format, int t) {
  const std::vector<float> values = testing::gaussian(kCount, 100 + t, 0.5f);
  HalfGradient g{std::vector<std::byte>(2 * kCount), std::vector<float>(kCount)};
  if (format == HalfFormat::kFp16) {
    floatsToHalf(values, g.bytes.data());
  } else {
    floatsToBf16(values, g.bytes.data());
  }
  widenHalf(format, g.bytes.data(), g.wide);
  return g;
}

std::vector<std::string> specsUnderTest() {
  std::vector<std::string> specs = testing::allSpecs();
  specs.push_back("dgc:0.01");
  specs.push_back("dgc:0.05:clip=0.5");
  specs.push_back("qsgd:4:bucket=100");  // buckets across packing blocks: widened first
  specs.push_back("qsgd:16:elias");
  return specs;
}

TEST(HalfInput, EncodeEqualsEncodeOfTheWidenedValues) {
  for (const std::string& spec : specsUnderTest()) {
    CompressorPtr c = makeCompressor(spec);
    for (HalfFormat format : {HalfFormat::kFp16, HalfFormat::kBf16}) {
      CompressorState fromHalf = freshState(), fromFloats = freshState();
      for (int t = 0; t < kSteps; ++t) {
        const HalfGradient g = halfGradient(format, t);
        // Odd steps hand the compressor a scratch of the caller's to widen into.
        std::vector<float> scratch(t % 2 == 1 ? kCount : 0);
        const Packet a = c->encode(HalfInput{g.bytes, format, scratch}, fromHalf);
        const Packet b = c->encode(std::span<const float>(g.wide), fromFloats);
        ASSERT_EQ(a.bytes, b.bytes) << spec << " step " << t;
        ASSERT_EQ(fromHalf.serialize(), fromFloats.serialize()) << spec << " step " << t;
      }
    }
  }
}

TEST(HalfInput, EncodeSummableEqualsEncodeSummableOfTheWidenedValues) {
  for (const std::string& spec : specsUnderTest()) {
    CompressorPtr c = makeCompressor(spec);
    if (c->aggregation() != Aggregation::kSummable) continue;
    for (HalfFormat format : {HalfFormat::kFp16, HalfFormat::kBf16}) {
      CompressorState fromHalf = freshState(), fromFloats = freshState();
      for (int t = 0; t < kSteps; ++t) {
        const HalfGradient g = halfGradient(format, t);
        std::vector<float> scratch(t % 2 == 1 ? kCount : 0);
        const std::vector<float> a =
            c->encodeSummable(HalfInput{g.bytes, format, scratch}, fromHalf);
        const std::vector<float> b = c->encodeSummable(std::span<const float>(g.wide), fromFloats);
        ASSERT_EQ(a, b) << spec << " step " << t;
        ASSERT_EQ(fromHalf.serialize(), fromFloats.serialize()) << spec << " step " << t;
      }
    }
  }
}

// What the hook relies on when it all-reduces a 16-bit bucket as it is: a
// plain cast is summable on a 16-bit wire and sends values of that precision
// unchanged.
TEST(HalfInput, APlainCastSendsValuesOfItsWirePrecisionUnchanged) {
  int casts = 0;
  for (const std::string& spec : specsUnderTest()) {
    CompressorPtr c = makeCompressor(spec);
    if (!c->isPlainCast()) continue;
    ++casts;
    ASSERT_EQ(c->aggregation(), Aggregation::kSummable) << spec;
    const bool fp16 = c->summableWire() == WirePrecision::kFloat16;
    ASSERT_TRUE(fp16 || c->summableWire() == WirePrecision::kBFloat16) << spec;
    const HalfGradient g = halfGradient(fp16 ? HalfFormat::kFp16 : HalfFormat::kBf16, 0);
    CompressorState state = freshState();
    EXPECT_EQ(c->encodeSummable(std::span<const float>(g.wide), state), g.wide) << spec;
  }
  EXPECT_EQ(casts, 2);                                     // fp16 and bf16
  EXPECT_FALSE(makeCompressor("fp16,ef")->isPlainCast());  // its residual is part of the message
}

TEST(HalfInput, ErrorFeedbackUnclippedDgcAndTiledQsgdReadHalfInputThemselves) {
  EXPECT_TRUE(makeCompressor("topk:0.01,ef")->readsHalfInput());
  EXPECT_TRUE(makeCompressor("randomk:0.01,ef")->readsHalfInput());
  EXPECT_TRUE(makeCompressor("dgc:0.01")->readsHalfInput());
  EXPECT_FALSE(makeCompressor("dgc:0.01:clip=1")->readsHalfInput());
  EXPECT_TRUE(makeCompressor("qsgd:16")->readsHalfInput());
  EXPECT_FALSE(makeCompressor("qsgd:16:bucket=100")->readsHalfInput());
  EXPECT_FALSE(makeCompressor("topk:0.01")->readsHalfInput());
}

TEST(HalfInput, AnOddByteCountIsRefusedWithoutTakingAStep) {
  CompressorPtr c = makeCompressor("topk:0.1,ef");
  CompressorState state = freshState();
  std::vector<std::byte> bytes(7);
  try {
    c->encode(HalfInput{bytes, HalfFormat::kFp16}, state);
    FAIL() << "an odd byte count was accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("7 bytes"), std::string::npos) << error.what();
  }
  EXPECT_EQ(state.step, 0u);
}

TEST(HalfInput, FinitenessIsReadFromTheExponents) {
  for (HalfFormat format : {HalfFormat::kFp16, HalfFormat::kBf16}) {
    HalfGradient g = halfGradient(format, 0);
    EXPECT_TRUE(halfValuesFinite(format, g.bytes.data(), kCount));
    for (float bad : {std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity(), std::nanf("")}) {
      std::vector<std::byte> copy = g.bytes;
      const float one[1] = {bad};
      if (format == HalfFormat::kFp16) {
        floatsToHalf(one, copy.data() + 2 * (kCount - 1));
      } else {
        floatsToBf16(one, copy.data() + 2 * (kCount - 1));
      }
      EXPECT_FALSE(halfValuesFinite(format, copy.data(), kCount)) << bad;
      EXPECT_TRUE(halfValuesFinite(format, copy.data(), kCount - 1)) << bad;
    }
  }
}

}  // namespace
}  // namespace tetrad
