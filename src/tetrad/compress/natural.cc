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

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/packet_alloc.h"

namespace tetrad {
namespace {
constexpr unsigned kBits = 9;
}

Packet NaturalCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  Packet packet;
  reservePacket(packet.bytes, kPacketHeaderBytes + packedBytes(n, kBits), state);
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kNatural, n);
  MutableBytes payload = writer.grow(packedBytes(n, kBits));

  const CounterRng rng(state.seed, state.rank, state.step,
                       static_cast<uint64_t>(PacketKind::kNatural));
  packCodesByChunk(payload, n, kBits, [&](size_t block, size_t start, std::span<uint16_t> codes) {
    const CounterRng::Key key = rng.blockKey(block);
    const float* x = input.data() + start;
    for (size_t i = 0; i < codes.size(); ++i) {
      const uint32_t bits = std::bit_cast<uint32_t>(x[i]);
      const uint32_t exponent = (bits >> 23) & 0xffu;
      const uint32_t mantissa = bits & 0x7fffffu;
      const uint32_t u = CounterRng::bits(key, static_cast<uint32_t>(i)) >> 9;
      const uint32_t rounded = std::min(exponent + (u < mantissa ? 1u : 0u), 255u);
      codes[i] = static_cast<uint16_t>(((bits >> 31) << 8) | rounded);
    }
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
