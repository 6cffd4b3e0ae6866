// Bit packing: round trips for every width and awkward lengths, layout,
// sign bits, and size checks on hostile input.
#include "tetrad/compress/bit_packing.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "quant_test_util.h"

namespace tetrad {
namespace {

TEST(BitPacking, RoundTripsEveryWidthAndLength) {
  std::mt19937 generator(7);
  for (unsigned bits = 1; bits <= 16; ++bits) {
    for (size_t n : {0, 1, 5, 63, 64, 65, 127, 1000, 4096, 4099}) {
      std::vector<uint16_t> codes(n);
      for (uint16_t& c : codes) c = static_cast<uint16_t>(generator() & ((1u << bits) - 1));
      ByteBuffer packed(packedBytes(n, bits));
      packCodes(codes, bits, packed);
      std::vector<uint16_t> back(n, 0xffff);
      unpackCodes(packed, bits, back);
      ASSERT_EQ(back, codes) << "bits " << bits << " n " << n;
      if (n * bits % 8 != 0) {  // unused high bits of the last byte are zero
        unsigned last = static_cast<unsigned>(packed.back());
        EXPECT_EQ(last >> (n * bits % 8), 0u) << "bits " << bits << " n " << n;
      }
    }
  }
}

TEST(BitPacking, LayoutIsLsbFirst) {
  std::vector<uint16_t> codes = {1, 2, 3, 0, 1};
  ByteBuffer packed(packedBytes(codes.size(), 2));
  ASSERT_EQ(packed.size(), 2u);
  packCodes(codes, 2, packed);
  // 01 | 10 | 11 | 00 -> 0b00111001 ; then 01
  EXPECT_EQ(static_cast<unsigned>(packed[0]), 0x39u);
  EXPECT_EQ(static_cast<unsigned>(packed[1]), 0x01u);
}

TEST(BitPacking, MasksCodesToTheWidth) {
  std::vector<uint16_t> codes(64, 0xffff);
  ByteBuffer packed(packedBytes(64, 3));
  packCodes(codes, 3, packed);
  std::vector<uint16_t> back(64);
  unpackCodes(packed, 3, back);
  for (uint16_t c : back) EXPECT_EQ(c, 7);
}

TEST(BitPacking, ChunksConcatenateToTheWholeStream) {
  for (unsigned bits : {1u, 3u, 9u, 13u}) {
    const size_t n = 3 * kPackChunk + 17;
    std::vector<uint16_t> codes(n);
    for (size_t i = 0; i < n; ++i) codes[i] = static_cast<uint16_t>((i * 2654435761u) >> 7);
    ByteBuffer whole(packedBytes(n, bits)), pieces(packedBytes(n, bits));
    packCodes(codes, bits, whole);
    for (size_t start = 0; start < n; start += kPackChunk) {
      size_t len = std::min(kPackChunk, n - start);
      packCodes(std::span<const uint16_t>(codes).subspan(start, len), bits,
                MutableBytes(pieces).subspan(start / kPackChunk * packedBytes(kPackChunk, bits),
                                             packedBytes(len, bits)));
    }
    EXPECT_EQ(whole, pieces) << bits;
  }
}

TEST(BitPacking, SignBitsRoundTrip) {
  for (size_t n : {0, 1, 63, 64, 65, 1000}) {
    std::vector<float> x = testing::gaussian(n, n + 1);
    if (n > 2) {
      x[0] = -0.0f;
      x[1] = 0.0f;
    }
    ByteBuffer bits(packedBytes(n, 1));
    packSignBits(x, bits);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(bitAt(bits, i), std::signbit(x[i])) << i;
    std::vector<float> out(n, 1.0f);
    addSignValues(bits, 2.0f, -3.0f, out);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], std::signbit(x[i]) ? -2.0f : 3.0f) << i;
  }
}

TEST(BitPacking, WrongPayloadSizesAreProtocolErrors) {
  std::vector<uint16_t> codes(100);
  ByteBuffer shortBuffer(packedBytes(100, 5) - 1), longBuffer(packedBytes(100, 5) + 1);
  EXPECT_THROW(unpackCodes(shortBuffer, 5, codes), ProtocolError);
  EXPECT_THROW(unpackCodes(longBuffer, 5, codes), ProtocolError);
  EXPECT_THROW(unpackCodes(ByteBuffer(200), 17, codes), ProtocolError);
  std::vector<float> out(100);
  EXPECT_THROW(addSignValues(ByteBuffer(12), 1, -1, out), ProtocolError);
  EXPECT_THROW(packCodes(codes, 5, shortBuffer), InvalidArgument);
}

}  // namespace
}  // namespace tetrad
