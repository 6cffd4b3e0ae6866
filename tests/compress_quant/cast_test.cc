// fp16/bf16: exactness on representable values, round to nearest even, the
// vectorised path against the portable one, special values.
#include "tetrad/compress/cast.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "quant_test_util.h"

namespace tetrad {
namespace {

TEST(Cast, EveryHalfDecodesLikeThePortableCode) {
  std::vector<std::byte> bytes(2 * 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    uint16_t v = static_cast<uint16_t>(h);
    std::memcpy(bytes.data() + 2 * h, &v, 2);
  }
  // -0.0 + v == v bit for bit (also for v = -0.0), unlike +0.0 + -0.0.
  std::vector<float> out(65536, -0.0f);
  addHalfToFloats(bytes.data(), out);
  for (uint32_t h = 0; h < 65536; ++h) {
    float expected = halfToFloatPortable(static_cast<uint16_t>(h));
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(out[h])) << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(out[h]), std::bit_cast<uint32_t>(expected)) << h;
    }
  }
}

// The overwriting bulk decoders of core/float16.h (used by the 16-bit wire of
// the all-reduce) against the scalar code, on every 16-bit pattern, with a
// length that leaves a scalar tail after the vector loop.
TEST(Cast, BulkDecodersWriteLikeThePortableCode) {
  std::vector<std::byte> bytes(2 * 65537);
  for (uint32_t h = 0; h < 65537; ++h) {
    uint16_t v = static_cast<uint16_t>(h);
    std::memcpy(bytes.data() + 2 * h, &v, 2);
  }
  std::vector<float> half(65537, 123.0f), bf16(65537, 123.0f);
  halfToFloats(bytes.data(), half);
  bf16ToFloats(bytes.data(), bf16);
  for (uint32_t h = 0; h < 65537; ++h) {
    const uint16_t v = static_cast<uint16_t>(h);
    const float wantHalf = halfToFloatPortable(v);
    const float wantBf16 = bf16ToFloat(v);
    if (std::isnan(wantHalf)) {
      EXPECT_TRUE(std::isnan(half[h])) << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(half[h]), std::bit_cast<uint32_t>(wantHalf)) << h;
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(bf16[h]), std::bit_cast<uint32_t>(wantBf16)) << h;
  }
}

TEST(Cast, SummableWireIsSixteenBits) {
  EXPECT_EQ(makeCompressor("fp16")->summableWire(), WirePrecision::kFloat16);
  EXPECT_EQ(makeCompressor("bf16")->summableWire(), WirePrecision::kBFloat16);
  EXPECT_EQ(makeCompressor("fp16,ef")->summableWire(), WirePrecision::kFloat16);
  EXPECT_EQ(makeCompressor("bf16,ef")->summableWire(), WirePrecision::kBFloat16);
  EXPECT_EQ(makeCompressor("none")->summableWire(), WirePrecision::kFloat32);
}

TEST(Cast, Fp16RoundTripIsExactOnRepresentableValues) {
  // Every finite half value, as float, survives encode/decode bit-exactly.
  std::vector<float> x;
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = halfToFloatPortable(static_cast<uint16_t>(h));
    if (std::isfinite(f)) x.push_back(f);
  }
  CompressorPtr fp16 = makeCompressor("fp16");
  CompressorState state;
  Packet packet = fp16->encode(x, state);
  std::vector<float> back(x.size(), -0.0f);  // -0.0 + v == v bit for bit
  fp16->decodeAdd(packet.bytes, back);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(back[i]), std::bit_cast<uint32_t>(x[i])) << x[i];
  }
}

TEST(Cast, VectorAndPortableFp16EncodersAgree) {
  std::mt19937 generator(3);
  std::vector<float> x(100000);
  for (float& v : x) v = std::bit_cast<float>(static_cast<uint32_t>(generator()));
  // Edge cases: ties, overflow boundary, subnormals, specials.
  const float edges[] = {65504.0f,
                         65519.99f,
                         65520.0f,
                         1e10f,
                         -1e10f,
                         0x1p-24f,
                         0x1p-25f,
                         0x1.8p-25f,
                         0x1p-26f,
                         1.0f + 0x1p-11f,
                         1.0f + 0x3p-11f,
                         -0.0f,
                         std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(),
                         0x1p-14f,
                         0x1.ffcp-15f};
  for (size_t i = 0; i < std::size(edges); ++i) x[i] = edges[i];
  std::vector<std::byte> fast(2 * x.size());
  floatsToHalf(x, fast.data());
  for (size_t i = 0; i < x.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, fast.data() + 2 * i, 2);
    uint16_t expected = floatToHalfPortable(x[i]);
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(halfToFloatPortable(h)));
    } else {
      ASSERT_EQ(h, expected) << "x = " << x[i];
    }
  }
}

TEST(Cast, Fp16RoundsToNearestEven) {
  // Halfway between 1 and 1 + 2^-10 rounds to 1 (even); halfway above that to 1 + 2^-9.
  EXPECT_EQ(halfToFloatPortable(floatToHalfPortable(1.0f + 0x1p-11f)), 1.0f);
  EXPECT_EQ(halfToFloatPortable(floatToHalfPortable(1.0f + 0x3p-11f)), 1.0f + 0x1p-9f);
  EXPECT_EQ(floatToHalfPortable(65520.0f), 0x7c00);    // overflows to inf
  EXPECT_EQ(floatToHalfPortable(65519.0f), 0x7bff);    // largest finite
  EXPECT_EQ(floatToHalfPortable(0x1p-25f), 0x0000);    // tie to even (zero)
  EXPECT_EQ(floatToHalfPortable(0x1.8p-24f), 0x0002);  // 1.5 ulp -> 2 (even)
}

TEST(Cast, Bf16RoundTripAndRounding) {
  // Values with 8 significant bits survive exactly.
  std::vector<float> x = {1.0f, -2.5f, 0x1.fep+100f, 0x1p-130f, 3.0e38f, 0.0f, -0.0f};
  for (float& v : x) v = bf16ToFloat(floatToBf16(v));  // make representable
  CompressorPtr bf16 = makeCompressor("bf16");
  CompressorState state;
  std::vector<float> back(x.size(), -0.0f);  // -0.0 + v == v bit for bit
  bf16->decodeAdd(bf16->encode(x, state).bytes, back);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(back[i]), std::bit_cast<uint32_t>(x[i])) << x[i];
  }
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 0x1p-8f)), 1.0f);              // tie -> even
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 0x3p-8f)), 1.0f + 0x1p-6f);    // tie -> even
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 0x1.2p-8f)), 1.0f + 0x1p-7f);  // above tie
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(bf16ToFloat(floatToBf16(std::numeric_limits<float>::infinity()))));
}

TEST(Cast, DecodeAddsIntoTheOutput) {
  std::vector<float> x = {1.0f, 2.0f, -4.0f};
  for (const char* spec : {"fp16", "bf16"}) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state;
    Packet packet = c->encode(x, state);
    std::vector<float> out = {10.0f, 10.0f, 10.0f};
    c->decodeAdd(packet.bytes, out);
    EXPECT_EQ(out, (std::vector<float>{11.0f, 12.0f, 6.0f})) << spec;
  }
}

}  // namespace
}  // namespace tetrad
