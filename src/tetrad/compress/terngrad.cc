// TernGrad (see terngrad.h).
//
// Packet (version 2): header, u32 tensor count T, u64 element count of each
// tensor (each >= 1, adding up to the header's count), float scale of each
// tensor, then the 2-bit codes of the whole bucket (0: 0, 1: +s, 2: -s; 3 is
// invalid), element i at bits [2i, 2i + 2) whatever its tensor.
// Cost: per tensor one pass for its max (and, when clipping, its σ in the same
// pass), then one pass for the stochastic codes, all prefetching ahead
// (vector_math.h); n/4 + 20 + 12·T bytes on the wire.
#include "tetrad/compress/terngrad.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

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

// One tensor of the bucket: elements [begin, end), its scale s (NaN when the
// tensor is not finite) and the threshold its codes compare with (s, or 0).
struct Segment {
  size_t begin = 0;
  size_t end = 0;
  float scale = 0;
  float threshold = 0;
};

// s = min(max|x|, c·σ) (c·σ only when clipping and σ > 0).
float scaleOf(std::span<const float> x, double clipSigmas) {
  if (clipSigmas <= 0) return vmath::maxAbs(x);
  const vmath::ShiftedMoments m = vmath::shiftedMoments(x, x[0]);
  const double n = static_cast<double>(x.size());
  const double meanShift = m.sum / n;
  const double sigma = std::sqrt(std::max(0.0, m.sumSquares / n - meanShift * meanShift));
  if (!(sigma > 0)) return m.maxAbs;  // constant (or non-finite): nothing to clip
  return std::min(m.maxAbs, static_cast<float>(clipSigmas * sigma));
}

std::vector<Segment> segmentsOf(std::span<const float> input, const CompressorState& state,
                                TernGradCompressor::Scope scope, double clipSigmas) {
  std::vector<Segment> segments;
  const size_t n = input.size();
  auto add = [&](size_t begin, size_t count) {
    if (count == 0) return;
    const float limit = scaleOf(input.subspan(begin, count), clipSigmas);
    // A non-finite tensor gives a NaN scale, so it decodes to NaN (the
    // failure propagates; no element is silently dropped).
    const bool finite = std::isfinite(limit);
    segments.push_back({begin, begin + count,
                        finite ? limit : std::numeric_limits<float>::quiet_NaN(),
                        finite ? limit : 0.0f});
  };
  if (scope == TernGradCompressor::Scope::kBucket) {
    add(0, n);
  } else {
    for (const TensorPart& part : tensorsOf(state, n)) add(part.offset, part.count);
  }
  return segments;
}

// Codes of elements [from, to) of the block at x (counters from..to-1 of
// `key`), all of one tensor with threshold t.
void codesOf(const float* x, size_t from, size_t to, float t, CounterRng::Key key,
             uint16_t* codes) {
  size_t i = from;
#if TETRAD_RNG_SIMD
  // The same operations on 16 lanes (AVX-512F): the same bits as below.
  using simd::F32x16, simd::I32x16, simd::U32x16;
  U32x16 weyl = (simd::firstCounters() + static_cast<uint32_t>(from)) * 0x9e3779b9u;
  for (; i + 16 <= to; i += 16) {
    U32x16 bits;
    std::memcpy(&bits, x + i, sizeof(bits));
    const F32x16 a = std::bit_cast<F32x16>(bits & 0x7fffffffu);
    const F32x16 magnitude = t < a ? F32x16{} + t : a;  // std::min(a, t)
    const F32x16 u = simd::uniform(simd::rngMixBits(key, weyl));
    const I32x16 send = u * t < magnitude;  // -1 or 0
    const U32x16 signCode = (bits >> 31) + 1u;
    simd::storeCodes(codes + i, signCode & std::bit_cast<U32x16>(send));
    weyl += 16u * 0x9e3779b9u;
  }
#endif
  for (; i < to; ++i) {
    const float magnitude = std::min(std::fabs(x[i]), t);
    const float u = CounterRng::uniform(CounterRng::mixBits(key, static_cast<uint32_t>(i)));
    const bool send = u * t < magnitude;
    const uint16_t signCode = std::signbit(x[i]) ? 2 : 1;
    codes[i] = send ? signCode : 0;
  }
}

#if TETRAD_TERNARY_SIMD
// A whole kPackChunk block of one tensor, threshold t: the codes of 16
// elements are two 16-bit masks (send and sign), deposited into the even bits
// (code 1, +s) and odd bits (code 2, -s) of one 32-bit word of the payload:
// the bit_packing.h layout, without codes in memory.
void packWholeBlock(const float* x, float threshold, CounterRng::Key key, std::byte* out) {
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

}  // namespace

std::string TernGradCompressor::spec() const {
  std::string text = "terngrad";
  if (scope_ == Scope::kBucket) text += ":scope=bucket";
  if (clipSigmas_ != kTernGradClipSigmas) text += fmt::format(":clip={:g}", clipSigmas_);
  return text;
}

size_t TernGradCompressor::packetBytes(size_t count, size_t tensors) {
  return kPacketHeaderBytes + 4 + tensors * (8 + 4) + packedBytes(count, kBits);
}

Packet TernGradCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  const std::vector<Segment> segments = segmentsOf(input, state, scope_, clipSigmas_);
  const size_t tensors = segments.size();

  Packet packet;
  // Every byte after the header is written below (startPacket: no zero-fill).
  MutableBytes body =
      startPacket(packet.bytes, packetBytes(n, tensors), PacketKind::kTernGrad, n, 0, state);
  const uint32_t count32 = static_cast<uint32_t>(tensors);
  std::memcpy(body.data(), &count32, sizeof(count32));
  std::byte* counts = body.data() + 4;
  std::byte* scales = counts + 8 * tensors;
  for (size_t t = 0; t < tensors; ++t) {
    const uint64_t count = segments[t].end - segments[t].begin;
    std::memcpy(counts + 8 * t, &count, sizeof(count));
    std::memcpy(scales + 4 * t, &segments[t].scale, sizeof(float));
  }
  MutableBytes payload = body.subspan(4 + 12 * tensors);

  const CounterRng rng(state.seed, state.rank, state.step,
                       static_cast<uint64_t>(PacketKind::kTernGrad));
  uint16_t codes[kPackChunk];
  size_t segment = 0;
  for (size_t start = 0, block = 0; start < n; start += kPackChunk, ++block) {
    const size_t len = std::min(kPackChunk, n - start);
    const CounterRng::Key key = rng.blockKey(block);
    const float* x = input.data() + start;
    while (segments[segment].end <= start) ++segment;
#if TETRAD_TERNARY_SIMD
    if (len == kPackChunk && segments[segment].end >= start + len) {
      packWholeBlock(x, segments[segment].threshold, key, payload.data() + start / 4);
      continue;
    }
#endif
    // Through 16-bit codes, tensor by tensor (a block may hold several).
    for (size_t t = segment, from = 0; from < len; ++t) {
      const size_t to = std::min(len, segments[t].end - start);
      codesOf(x, from, to, segments[t].threshold, key, codes);
      from = to;
    }
    packCodes(std::span<const uint16_t>(codes, len), kBits,
              payload.subspan(start / 4, packedBytes(len, kBits)));
  }
  return packet;
}

void TernGradCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  const size_t n = output.size();
  PacketHeader header = readPacketHeader(reader, PacketKind::kTernGrad, n);
  TETRAD_CHECK(header.flags == 0, ProtocolError, "terngrad packet: unknown flags {:#x}",
               header.flags);
  const uint32_t tensors = reader.get<uint32_t>("terngrad tensor count");
  // Every tensor holds at least one element, and its count and scale are 12 bytes.
  TETRAD_CHECK(tensors <= n && (n == 0 || tensors >= 1) && tensors <= reader.remaining() / 12,
               ProtocolError, "terngrad packet: {} tensors for {} elements ({} bytes left)",
               tensors, n, reader.remaining());
  std::vector<size_t> ends(tensors);
  size_t total = 0;
  for (uint32_t t = 0; t < tensors; ++t) {
    const uint64_t count = reader.get<uint64_t>("terngrad tensor size");
    TETRAD_CHECK(count >= 1 && count <= n - total, ProtocolError,
                 "terngrad packet: tensor {} of {} holds {} elements, {} of {} left", t, tensors,
                 count, n - total, n);
    total += static_cast<size_t>(count);
    ends[t] = total;
  }
  TETRAD_CHECK(total == n, ProtocolError,
               "terngrad packet: its {} tensors hold {} elements where {} were expected", tensors,
               total, n);
  std::vector<float> scales(tensors);
  for (float& s : scales) s = reader.get<float>("terngrad scale");
  ConstBytes payload = reader.getBytes(packedBytes(n, kBits), "terngrad codes");
  reader.expectEnd("terngrad packet");
  size_t t = 0;
  unpackCodesByChunk(payload, n, kBits, [&](size_t start, std::span<const uint16_t> codes) {
    unsigned invalid = 0;
    for (const uint16_t c : codes) invalid |= c & (c >> 1);
    TETRAD_CHECK(invalid == 0, ProtocolError,
                 "terngrad packet: invalid ternary code 3 in elements [{}, {})", start,
                 start + codes.size());
    float* out = output.data() + start;
    for (size_t from = 0; from < codes.size();) {
      while (ends[t] <= start + from) ++t;
      const size_t to = std::min(codes.size(), ends[t] - start);
      const float s = scales[t];
      for (size_t i = from; i < to; ++i) {
        const int c = codes[i];
        out[i] += s * static_cast<float>((c & 1) - (c >> 1));
      }
      from = to;
    }
  });
}

double TernGradCompressor::bitsPerElement(size_t count) const {
  if (count == 0) return 0.0;
  return 8.0 * static_cast<double>(packetBytes(count, 1)) / static_cast<double>(count);
}

double TernGradCompressor::bucketBitsPerElement(const CompressorState& state, size_t count) const {
  if (count == 0) return 0.0;
  size_t tensors = 1;
  if (scope_ == Scope::kTensor) {
    tensors = 0;
    for (const TensorPart& part : tensorsOf(state, count)) tensors += part.count > 0 ? 1 : 0;
  }
  return 8.0 * static_cast<double>(packetBytes(count, tensors)) / static_cast<double>(count);
}

CompressorPtr makeTernGrad(const CompressorParams& params) {
  params.expectParamCount(0, 2);
  params.expectKnown(0, {}, {"scope", "clip"});
  const size_t scope = params.keyChoice("scope", {"tensor", "bucket"}).value_or(0);
  const double clip =
      params.keyNumberIn("clip", 0.0, false, std::numeric_limits<double>::infinity(), true)
          .value_or(kTernGradClipSigmas);
  return std::make_unique<TernGradCompressor>(
      scope == 0 ? TernGradCompressor::Scope::kTensor : TernGradCompressor::Scope::kBucket, clip);
}

}  // namespace tetrad
