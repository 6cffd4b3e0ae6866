// `none` (see none.h). Packet: header, then count float32 values.
// Cost: encode and decode are one copy (n·4 bytes); 32 bits per element.
#include "tetrad/compress/none.h"

#include <cstring>

#include "tetrad/compress/packet_alloc.h"

namespace tetrad {

Packet NoneCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  Packet packet;
  reservePacket(packet.bytes, kPacketHeaderBytes + input.size_bytes(), state);
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kNone, input.size());
  writer.putBytes(asBytes(input));
  return packet;
}

void NoneCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  readPacketHeader(reader, PacketKind::kNone, output.size());
  ConstBytes payload = reader.getBytes(output.size_bytes(), "none payload");
  reader.expectEnd("none packet");
  const std::byte* src = payload.data();
  float* out = output.data();
  const size_t n = output.size();
  for (size_t i = 0; i < n; ++i) {
    float value;
    std::memcpy(&value, src + 4 * i, 4);
    out[i] += value;
  }
}

double NoneCompressor::bitsPerElement(size_t count) const {
  return count == 0 ? 0.0 : 32.0 + 8.0 * kPacketHeaderBytes / static_cast<double>(count);
}

CompressorPtr makeNone(const CompressorParams& params) {
  params.expectParamCount(0, 0);
  return std::make_unique<NoneCompressor>();
}

}  // namespace tetrad
