// Natural compression (see natural.h).
//
// Packet: header, 9-bit codes (sign << 8 | exponent; bit_packing.h). The
// rounding works on the float's bits: with exponent field E and mantissa m,
// the result's exponent is E + [u < m] for u uniform in [0, 2^23), which is
// the unbiased power-of-two rounding for normal and subnormal inputs alike.
// Cost: one pass each way; 9n/8 + 16 bytes on the wire.
#include "tetrad/compress/natural.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/counter_rng_simd.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {
namespace {
constexpr unsigned kBits = 9;

// The codes of x[0, codes.size()), counters 0, 1, ... of `key`'s block.
void naturalCodes(const float* x, CounterRng::Key key, std::span<uint16_t> codes) {
  const size_t len = codes.size();
  size_t i = 0;
#if TETRAD_RNG_SIMD
  // Sign and exponent are bits 31..23, so code = (bits >> 23) & 0x1ff, plus
  // one where u < mantissa and the exponent is not 255 (the min() below).
  const __m512i exponentMask = _mm512_set1_epi32(0x7f800000);
  simd::U32x16 counters = simd::firstCounters();
  for (; i + 16 <= len; i += 16) {
    vmath::prefetchAhead(x + i);
    simd::U32x16 bits;
    std::memcpy(&bits, x + i, sizeof(bits));
    const simd::U32x16 u = simd::rngBits(key, counters) >> 9;
    const simd::U32x16 mantissa = bits & 0x7fffffu;
    const __mmask16 finite =
        _mm512_cmpneq_epi32_mask(_mm512_and_si512(simd::toM512i(bits), exponentMask), exponentMask);
    const __mmask16 up =
        _mm512_mask_cmplt_epu32_mask(finite, simd::toM512i(u), simd::toM512i(mantissa));
    const simd::U32x16 code = (bits >> 23) & 0x1ffu;
    simd::storeCodes(codes.data() + i,
                     std::bit_cast<simd::U32x16>(_mm512_mask_add_epi32(
                         simd::toM512i(code), up, simd::toM512i(code), _mm512_set1_epi32(1))));
    counters += 16;
  }
#endif
  for (; i < len; ++i) {
    const uint32_t bits = std::bit_cast<uint32_t>(x[i]);
    const uint32_t exponent = (bits >> 23) & 0xffu;
    const uint32_t mantissa = bits & 0x7fffffu;
    const uint32_t u = CounterRng::bits(key, static_cast<uint32_t>(i)) >> 9;
    const uint32_t rounded = std::min(exponent + (u < mantissa ? 1u : 0u), 255u);
    codes[i] = static_cast<uint16_t>(((bits >> 31) << 8) | rounded);
  }
}

}  // namespace

Packet NaturalCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  Packet packet;
  // Every payload byte is written below (startPacket: no zero-fill).
  MutableBytes payload = startPacket(packet.bytes, kPacketHeaderBytes + packedBytes(n, kBits),
                                     PacketKind::kNatural, n, 0, state);

  const CounterRng rng(state.seed, state.rank, state.step,
                       static_cast<uint64_t>(PacketKind::kNatural));
  packCodesByChunk(payload, n, kBits, [&](size_t block, size_t start, std::span<uint16_t> codes) {
    naturalCodes(input.data() + start, rng.blockKey(block), codes);
  });
  return packet;
}

void NaturalCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  const size_t n = output.size();
  PacketHeader header = readPacketHeader(reader, PacketKind::kNatural, n);
  TETRAD_CHECK(header.flags == 0, ProtocolError, "natural packet: unknown flags {:#x}",
               header.flags);
  ConstBytes payload = reader.getBytes(packedBytes(n, kBits), "natural codes");
  reader.expectEnd("natural packet");
  unpackCodesByChunk(payload, n, kBits, [&](size_t start, std::span<const uint16_t> codes) {
    float* out = output.data() + start;
    for (size_t i = 0; i < codes.size(); ++i) {
      const uint32_t c = codes[i];
      out[i] += std::bit_cast<float>(((c >> 8) << 31) | ((c & 0xffu) << 23));
    }
  });
}

double NaturalCompressor::bitsPerElement(size_t count) const {
  if (count == 0) return 0.0;
  return 8.0 * static_cast<double>(kPacketHeaderBytes + packedBytes(count, kBits)) /
         static_cast<double>(count);
}

CompressorPtr makeNatural(const CompressorParams& params) {
  params.expectParamCount(0, 0);
  return std::make_unique<NaturalCompressor>();
}

}  // namespace tetrad
