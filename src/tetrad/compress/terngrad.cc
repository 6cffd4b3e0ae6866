// TernGrad (see terngrad.h).
//
// Packet: header, float s, 2-bit codes (0: 0, 1: +s, 2: -s; 3 is invalid).
// Cost: two passes (max, then stochastic codes; a third for σ when
// clipping), both prefetching ahead (vector_math.h); n/4 + 20 bytes on the
// wire.
#include "tetrad/compress/terngrad.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/counter_rng_simd.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/vector_math.h"

#if TETRAD_RNG_SIMD && defined(__AVX512DQ__) && defined(__BMI2__)
#include <immintrin.h>
#define TETRAD_TERNARY_SIMD 1
#endif

namespace tetrad {
namespace {
constexpr unsigned kBits = 2;
static_assert(kPackChunk % 16 == 0 && kPackChunk * kBits % 8 == 0);
}  // namespace

std::string TernGradCompressor::spec() const {
  return clipSigmas_ > 0 ? fmt::format("terngrad:clip={}", clipSigmas_) : "terngrad";
}

Packet TernGradCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  float limit = vmath::maxAbs(input);
  if (clipSigmas_ > 0 && n > 0) {
    const double mean = vmath::sum(input) / static_cast<double>(n);
    const double meanSquare = vmath::sumSquares(input) / static_cast<double>(n);
    const double sigma = std::sqrt(std::max(0.0, meanSquare - mean * mean));
    limit = std::min(limit, static_cast<float>(clipSigmas_ * sigma));
  }
  // A non-finite tensor gives a NaN scale, so the packet decodes to NaN
  // (the failure propagates; no element is silently dropped).
  const bool finite = std::isfinite(limit);
  const float s = finite ? limit : std::numeric_limits<float>::quiet_NaN();
  const float threshold = finite ? s : 0.0f;

  Packet packet;
  // Every byte after the header is written below (startPacket: no zero-fill).
  MutableBytes body = startPacket(packet.bytes, kPacketHeaderBytes + 4 + packedBytes(n, kBits),
                                  PacketKind::kTernGrad, n, 0, state);
  std::memcpy(body.data(), &s, sizeof(float));
  MutableBytes payload = body.subspan(sizeof(float));

  const CounterRng rng(state.seed, state.rank, state.step,
                       static_cast<uint64_t>(PacketKind::kTernGrad));
  size_t start = 0, block = 0;  // whole kPackChunk blocks, kPackChunk / 4 bytes each
#if TETRAD_TERNARY_SIMD
  // The codes of 16 elements are two 16-bit masks (send and sign), deposited
  // into the even bits (code 1, +s) and odd bits (code 2, -s) of one 32-bit
  // word of the payload: the bit_packing.h layout, without codes in memory.
  for (; start + kPackChunk <= n; start += kPackChunk, ++block) {
    const CounterRng::Key key = rng.blockKey(block);
    const float* x = input.data() + start;
    std::byte* out = payload.data() + start / 4;
    const __m512 t = _mm512_set1_ps(threshold);
    simd::U32x16 weyl = simd::firstCounters() * 0x9e3779b9u;
    for (size_t i = 0; i < kPackChunk; i += 16) {
      vmath::prefetchAhead(x + i);
      const __m512 v = _mm512_loadu_ps(x + i);
      const simd::F32x16 a =
          std::bit_cast<simd::F32x16>(std::bit_cast<simd::U32x16>(v) & 0x7fffffffu);
      const simd::F32x16 magnitude = threshold < a ? simd::F32x16{} + threshold : a;
      const simd::F32x16 u = simd::uniform(simd::rngMixBits(key, weyl));
      const unsigned send = _mm512_cmp_ps_mask(_mm512_mul_ps(std::bit_cast<__m512>(u), t),
                                               std::bit_cast<__m512>(magnitude), _CMP_LT_OQ);
      const unsigned negative = _mm512_movepi32_mask(_mm512_castps_si512(v));
      const uint32_t word =
          _pdep_u32(send & ~negative, 0x55555555u) | _pdep_u32(send & negative, 0xaaaaaaaau);
      std::memcpy(out + i / 4, &word, sizeof(word));
      weyl += 16u * 0x9e3779b9u;
    }
  }
#endif
  // The rest (every block without AVX-512), through 16-bit codes.
  const size_t done = start;
  packCodesByChunk(
      payload.subspan(done / 4), n - done, kBits,
      [&](size_t rest, size_t, std::span<uint16_t> codes) {
        const CounterRng::Key key = rng.blockKey(block + rest);
        const float* x = input.data() + done + rest * kPackChunk;
        size_t i = 0;
#if TETRAD_RNG_SIMD
        // The same operations on 16 lanes (AVX-512F): the same bits as below.
        using simd::F32x16, simd::I32x16, simd::U32x16;
        U32x16 weyl = simd::firstCounters() * 0x9e3779b9u;
        for (; i + 16 <= codes.size(); i += 16) {
          U32x16 bits;
          std::memcpy(&bits, x + i, sizeof(bits));
          const F32x16 a = std::bit_cast<F32x16>(bits & 0x7fffffffu);
          const F32x16 magnitude = threshold < a ? F32x16{} + threshold : a;  // std::min(a, t)
          const F32x16 u = simd::uniform(simd::rngMixBits(key, weyl));
          const I32x16 send = u * threshold < magnitude;  // -1 or 0
          const U32x16 signCode = (bits >> 31) + 1u;
          simd::storeCodes(codes.data() + i, signCode & std::bit_cast<U32x16>(send));
          weyl += 16u * 0x9e3779b9u;
        }
#endif
        for (; i < codes.size(); ++i) {
          const float magnitude = std::min(std::fabs(x[i]), threshold);
          const float u = CounterRng::uniform(CounterRng::mixBits(key, static_cast<uint32_t>(i)));
          const bool send = u * threshold < magnitude;
          const uint16_t signCode = std::signbit(x[i]) ? 2 : 1;
          codes[i] = send ? signCode : 0;
        }
      });
  return packet;
}

void TernGradCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  const size_t n = output.size();
  PacketHeader header = readPacketHeader(reader, PacketKind::kTernGrad, n);
  TETRAD_CHECK(header.flags == 0, ProtocolError, "terngrad packet: unknown flags {:#x}",
               header.flags);
  const float s = reader.get<float>("terngrad scale");
  ConstBytes payload = reader.getBytes(packedBytes(n, kBits), "terngrad codes");
  reader.expectEnd("terngrad packet");
  unpackCodesByChunk(payload, n, kBits, [&](size_t start, std::span<const uint16_t> codes) {
    unsigned invalid = 0;
    for (const uint16_t c : codes) invalid |= c & (c >> 1);
    TETRAD_CHECK(invalid == 0, ProtocolError,
                 "terngrad packet: invalid ternary code 3 in elements [{}, {})", start,
                 start + codes.size());
    float* out = output.data() + start;
    for (size_t i = 0; i < codes.size(); ++i) {
      const int c = codes[i];
      out[i] += s * static_cast<float>((c & 1) - (c >> 1));
    }
  });
}

double TernGradCompressor::bitsPerElement(size_t count) const {
  if (count == 0) return 0.0;
  return 8.0 * static_cast<double>(kPacketHeaderBytes + 4 + packedBytes(count, kBits)) /
         static_cast<double>(count);
}

CompressorPtr makeTernGrad(const CompressorParams& params) {
  params.expectParamCount(0, 1);
  params.expectKnown(0, {}, {"clip"});
  return std::make_unique<TernGradCompressor>(params.keyNumber("clip").value_or(0.0));
}

}  // namespace tetrad
