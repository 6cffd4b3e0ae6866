// EF-signSGD (see efsign.h). Packet as `sign` (sign.h) with kind kEfSign.
// Cost: two passes over the tensor and its residual (the second only
// updates the residual); n/8 + 20 bytes.
#include "tetrad/compress/efsign.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/sign.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {

Packet EfSignCompressor::encode(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  std::vector<float>& residual = state.buffer("residual", n);
  Packet packet;
  reservePacket(packet.bytes, kPacketHeaderBytes + 4 + packedBytes(n, 1));
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kEfSign, n);
  MutableBytes scaleSlot = writer.grow(sizeof(float));
  MutableBytes bits = writer.grow(packedBytes(n, 1));
  // Pass 1, chunk by chunk: p = x + e (kept in residual) and ‖p‖₁, then the
  // sign bits of p while the chunk is still in cache (they do not depend on
  // the scale).
  float* r = residual.data();
  double l1 = 0;
  for (size_t start = 0; start < n; start += kPackChunk) {
    const size_t len = std::min(kPackChunk, n - start);
    l1 += vmath::addIntoAndSumAbs(input.subspan(start, len), std::span<float>(r + start, len));
    packSignBits(std::span<const float>(r + start, len),
                 bits.subspan(start / 8, packedBytes(len, 1)));
  }
  const float scale = n == 0 ? 0.0f : static_cast<float>(l1 / static_cast<double>(n));
  std::memcpy(scaleSlot.data(), &scale, sizeof(float));
  // Pass 2: e = p - scale·sign(p).
  for (size_t i = 0; i < n; ++i) r[i] -= std::signbit(r[i]) ? -scale : scale;
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
