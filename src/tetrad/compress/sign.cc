// signSGD with majority vote (see sign.h).
//
// Packet: header, float scale, sign bits (bit_packing.h).
// Encode: one pass (norm and sign bits chunk by chunk).
// Majority vote: ring all-gather of p packets of n/8 bytes, so
//   T = (p-1)·(α + β·(n/8 + 20))  plus O(p·n) local vote counting.
#include "tetrad/compress/sign.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "tetrad/collectives/allgather.h"
#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {

Packet encodeSignPacket(PacketKind kind, std::span<const float> values, float scale) {
  Packet packet;
  const size_t n = values.size();
  reservePacket(packet.bytes, kPacketHeaderBytes + 4 + packedBytes(n, 1));
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, kind, n);
  writer.put<float>(scale);
  packSignBits(values, writer.grow(packedBytes(n, 1)));
  return packet;
}

SignPacket parseSignPacket(PacketKind kind, ConstBytes packet, size_t count) {
  ByteReader reader(packet);
  PacketHeader header = readPacketHeader(reader, kind, count);
  TETRAD_CHECK(header.flags == 0, ProtocolError, "sign packet (kind {}): unknown flags {:#x}",
               header.kind, header.flags);
  SignPacket result;
  result.scale = reader.get<float>("sign scale");
  result.bits = reader.getBytes(packedBytes(count, 1), "sign bits");
  reader.expectEnd("sign packet");
  return result;
}

double signPacketBits(size_t count) {
  if (count == 0) return 0.0;
  return 8.0 * static_cast<double>(kPacketHeaderBytes + 4 + packedBytes(count, 1)) /
         static_cast<double>(count);
}

std::string SignCompressor::spec() const {
  return momentum_ > 0 ? fmt::format("sign:momentum={:g}", momentum_) : "sign";
}

std::span<const float> SignCompressor::signedValues(std::span<const float> input,
                                                    CompressorState& state) const {
  if (momentum_ == 0) return input;
  std::vector<float>& m = state.buffer("momentum", input.size());
  const float keep = static_cast<float>(momentum_), take = static_cast<float>(1 - momentum_);
  for (size_t i = 0; i < input.size(); ++i) m[i] = keep * m[i] + take * input[i];
  return m;
}

Packet SignCompressor::encodeStep(std::span<const float> gradient, CompressorState& state) const {
  const std::span<const float> input = signedValues(gradient, state);
  // One pass: per cache-sized chunk, ‖chunk‖₁ and then its sign bits (the
  // second read hits L1/L2); the scale goes into its slot at the end.
  const size_t n = input.size();
  Packet packet;
  // Every byte after the header is written below (startPacket: no zero-fill).
  MutableBytes body = startPacket(packet.bytes, kPacketHeaderBytes + 4 + packedBytes(n, 1),
                                  PacketKind::kSign, n, 0, state);
  MutableBytes scaleSlot = body.first(sizeof(float));
  MutableBytes bits = body.subspan(sizeof(float));
  double l1 = 0;
  for (size_t start = 0; start < n; start += kPackChunk) {
    const std::span<const float> chunk = input.subspan(start, std::min(kPackChunk, n - start));
    l1 += vmath::sumAbs(chunk);
    packSignBits(chunk, bits.subspan(start / 8, packedBytes(chunk.size(), 1)));
  }
  const float scale = n == 0 ? 0.0f : static_cast<float>(l1 / static_cast<double>(n));
  std::memcpy(scaleSlot.data(), &scale, sizeof(float));
  return packet;
}

void SignCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  SignPacket parsed = parseSignPacket(PacketKind::kSign, packet, output.size());
  addSignValues(parsed.bits, parsed.scale, -parsed.scale, output);
}

double SignCompressor::bitsPerElement(size_t count) const {
  return signPacketBits(count);
}

void SignCompressor::aggregateCustomStep(Transport& transport, std::span<float> gradient,
                                         CompressorState& state,
                                         const ProtocolOptions& protocol) const {
  const Tag tag = protocol.tag;
  Packet mine = timeCodec(protocol.codec, [&] { return encodeStep(gradient, state); });
  std::vector<ByteBuffer> packets = allgatherBytes(transport, mine.bytes, CollectiveOptions{tag});
  if (!transport.carriesPayload()) return;  // payload-free simulation: no data to vote on
  timeCodec(protocol.codec, [&] {
    const size_t n = gradient.size();
    // votes[i] = Σ_r ±1; exact in float for any realistic world size (< 2^24).
    std::vector<float> votes(n, 0.0f);
    double scaleSum = 0;
    for (size_t r = 0; r < packets.size(); ++r) {
      SignPacket parsed = parseSignPacket(PacketKind::kSign, packets[r], n);
      TETRAD_CHECK(std::isfinite(parsed.scale), ProtocolError,
                   "sign majority vote: rank {} sent a non-finite scale (rank {}, {} elements)", r,
                   transport.rank(), n);
      scaleSum += parsed.scale;
      addSignValues(parsed.bits, 1.0f, -1.0f, votes);
    }
    const float total = static_cast<float>(scaleSum);
    float* g = gradient.data();
    for (size_t i = 0; i < n; ++i) {
      const float v = votes[i];
      g[i] = v > 0 ? total : (v < 0 ? -total : 0.0f);
    }
  });
}

CompressorPtr makeSign(const CompressorParams& params) {
  params.expectParamCount(0, 1);
  params.expectKnown(0, {}, {"momentum"});
  // Signum's β (Bernstein et al. 2018, Alg. 3) lies in (0, 1); without the
  // key, plain signSGD.
  const double momentum = params.keyNumberIn("momentum", 0.0, true, 1.0, true).value_or(0.0);
  return std::make_unique<SignCompressor>(momentum);
}

}  // namespace tetrad
