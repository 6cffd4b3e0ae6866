// EF-signSGD (see efsign.h). Packet as `sign` (sign.h) with kind kEfSign.
// Cost: two passes over the tensor and its residual; n/8 + 20 bytes.
#include "tetrad/compress/efsign.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/sign.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {

Packet EfSignCompressor::encode(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  std::vector<float>& residual = state.buffer("residual", n);
  // Pass 1: p = x + e (kept in residual) and ‖p‖₁.
  const double l1 = vmath::addIntoAndSumAbs(input, residual);
  const float scale = n == 0 ? 0.0f : static_cast<float>(l1 / static_cast<double>(n));
  Packet packet;
  reservePacket(packet.bytes, kPacketHeaderBytes + 4 + packedBytes(n, 1));
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kEfSign, n);
  writer.put<float>(scale);
  MutableBytes bits = writer.grow(packedBytes(n, 1));
  // Pass 2, chunk by chunk while the chunk is in cache: the sign bits of p,
  // then e = p - scale·sign(p).
  float* r = residual.data();
  for (size_t start = 0; start < n; start += kPackChunk) {
    const size_t len = std::min(kPackChunk, n - start);
    packSignBits(std::span<const float>(r + start, len),
                 bits.subspan(start / 8, packedBytes(len, 1)));
    for (size_t i = start; i < start + len; ++i) r[i] -= std::signbit(r[i]) ? -scale : scale;
  }
  ++state.step;
  return packet;
}

void EfSignCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  SignPacket parsed = parseSignPacket(PacketKind::kEfSign, packet, output.size());
  addSignValues(parsed.bits, parsed.scale, -parsed.scale, output);
}

double EfSignCompressor::bitsPerElement(size_t count) const {
  return signPacketBits(count);
}

CompressorPtr makeEfSign(const CompressorParams& params) {
  params.expectParamCount(0, 0);
  return std::make_unique<EfSignCompressor>();
}

}  // namespace tetrad
