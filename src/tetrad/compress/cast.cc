// fp16 / bf16 casts (see cast.h). Packet: header, then count 16-bit values.
// Cost: one pass each way (core/float16.h); 16 bits per element. The packet
// is written in place over the recycled buffer (startPacket(), no zero-fill
// first). With AVX512_BF16 (and DQ), float -> bf16 uses vcvtne2ps2bf16 (round to
// nearest even, NaN -> quiet NaN, the same bits as core/float16.h's integer
// rounding) on every 32 floats without a subnormal; that instruction flushes
// subnormals to zero, so a group with one (vfpclassps) takes the scalar
// rounding instead.
#include "tetrad/compress/cast.h"

#include <bit>
#include <cstring>

#if defined(__AVX512BF16__) && defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#define TETRAD_NATIVE_BF16 1
#endif

#include "tetrad/compress/packet_alloc.h"

namespace tetrad {
namespace {

// out = bf16(in), bit for bit floatsToBf16() (core/float16.h).
void encodeBf16(std::span<const float> in, std::byte* out) {
  size_t done = 0;
#if TETRAD_NATIVE_BF16
  const float* src = in.data();
  constexpr int kSubnormal = 0x20;  // vfpclassps category: denormal, either sign
  for (; done + 32 <= in.size(); done += 32) {
    const __m512 lo = _mm512_loadu_ps(src + done), hi = _mm512_loadu_ps(src + done + 16);
    const __mmask16 odd =
        _mm512_fpclass_ps_mask(lo, kSubnormal) | _mm512_fpclass_ps_mask(hi, kSubnormal);
    if (odd == 0) [[likely]] {
      _mm512_storeu_si512(out + 2 * done, std::bit_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
    } else {
      for (size_t i = done; i < done + 32; ++i) {
        const uint16_t h = floatToBf16(src[i]);
        std::memcpy(out + 2 * i, &h, 2);
      }
    }
  }
#endif
  floatsToBf16(in.subspan(done), out + 2 * done);
}

}  // namespace

WirePrecision HalfCompressor::summableWire() const {
  return format_ == HalfFormat::kFp16 ? WirePrecision::kFloat16 : WirePrecision::kBFloat16;
}

Packet HalfCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  Packet packet;
  const PacketKind kind = format_ == HalfFormat::kFp16 ? PacketKind::kFp16 : PacketKind::kBf16;
  // Every payload byte is written below, so the recycled bytes need no zeroing.
  MutableBytes payload = startPacket(packet.bytes, kPacketHeaderBytes + 2 * input.size(), kind,
                                     input.size(), 0, state);
  if (format_ == HalfFormat::kFp16) {
    floatsToHalf(input, payload.data());
  } else {
    encodeBf16(input, payload.data());
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
