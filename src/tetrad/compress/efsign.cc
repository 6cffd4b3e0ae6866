// EF-signSGD (see efsign.h). Packet as `sign` (sign.h) with kind kEfSign.
// Cost: one pass over the tensor and the stored p (read x and p, write p;
// the previous scale is subtracted on the fly, see onebit.h); n/8 + 20 bytes.
#include "tetrad/compress/efsign.h"

#include <memory>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/onebit.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/sign.h"

namespace tetrad {

Packet EfSignCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  Packet packet;
  // encodeSignWithFeedback writes every byte after the header (no zero-fill).
  MutableBytes body = startPacket(packet.bytes, kPacketHeaderBytes + 4 + packedBytes(n, 1),
                                  PacketKind::kEfSign, n, 0, state);
  MutableBytes scaleSlot = body.first(sizeof(float));
  MutableBytes bits = body.subspan(sizeof(float));
  encodeSignWithFeedback(input, state, true, scaleSlot, bits);
  return packet;
}

void EfSignCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  SignPacket parsed = parseSignPacket(PacketKind::kEfSign, packet, output.size());
  addSignValues(parsed.bits, parsed.scale, -parsed.scale, output);
}

std::vector<float> EfSignCompressor::errorFeedbackResidual(const CompressorState& state) const {
  return deferredResidual(*this, state);
}

double EfSignCompressor::bitsPerElement(size_t count) const {
  return signPacketBits(count);
}

CompressorPtr makeEfSign(const CompressorParams& params) {
  params.expectParamCount(0, 0);
  return std::make_unique<EfSignCompressor>();
}

}  // namespace tetrad
