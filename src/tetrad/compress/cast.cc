// fp16 / bf16 casts (see cast.h). Packet: header, then count 16-bit values.
// Cost: one pass each way (core/float16.h); 16 bits per element.
#include "tetrad/compress/cast.h"

#include "tetrad/compress/packet_alloc.h"

namespace tetrad {

WirePrecision HalfCompressor::summableWire() const {
  return format_ == HalfFormat::kFp16 ? WirePrecision::kFloat16 : WirePrecision::kBFloat16;
}

Packet HalfCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  Packet packet;
  reservePacket(packet.bytes, kPacketHeaderBytes + 2 * input.size(), state);
  ByteWriter writer(packet.bytes);
  const PacketKind kind = format_ == HalfFormat::kFp16 ? PacketKind::kFp16 : PacketKind::kBf16;
  writePacketHeader(writer, kind, input.size());
  MutableBytes payload = writer.grow(2 * input.size());
  if (format_ == HalfFormat::kFp16) {
    floatsToHalf(input, payload.data());
  } else {
    floatsToBf16(input, payload.data());
  }
  return packet;
}

void HalfCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  const PacketKind kind = format_ == HalfFormat::kFp16 ? PacketKind::kFp16 : PacketKind::kBf16;
  readPacketHeader(reader, kind, output.size());
  ConstBytes payload = reader.getBytes(2 * output.size(), "16-bit payload");
  reader.expectEnd(spec() + " packet");
  if (format_ == HalfFormat::kFp16) {
    addHalfToFloats(payload.data(), output);
  } else {
    addBf16ToFloats(payload.data(), output);
  }
}

double HalfCompressor::bitsPerElement(size_t count) const {
  return count == 0 ? 0.0 : 16.0 + 8.0 * kPacketHeaderBytes / static_cast<double>(count);
}

CompressorPtr makeFp16(const CompressorParams& params) {
  params.expectParamCount(0, 0);
  return std::make_unique<HalfCompressor>(HalfFormat::kFp16);
}

CompressorPtr makeBf16(const CompressorParams& params) {
  params.expectParamCount(0, 0);
  return std::make_unique<HalfCompressor>(HalfFormat::kBf16);
}

}  // namespace tetrad
