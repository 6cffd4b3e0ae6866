// fp16 / bf16 conversions (see float16.h).
// Cost: one pass over the data each way, vectorised (F16C / AVX-512 for fp16;
// AVX-512 integer rounding for float -> bf16; elsewhere plain loops over
// cached chunks that the compiler vectorises).
#include "tetrad/core/float16.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tetrad {

uint16_t floatToHalfPortable(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  uint16_t magnitude;
  if (x >= 0x47800000u) {  // >= 65536, inf or NaN
    magnitude = x > 0x7f800000u ? 0x7e00u : 0x7c00u;
  } else if (x < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
    // Adding 0.5 aligns the half's subnormal grid with float's last mantissa
    // bits; the FPU rounds to nearest even.
    float sum = std::bit_cast<float>(x) + 0.5f;
    magnitude = static_cast<uint16_t>(std::bit_cast<uint32_t>(sum) - 0x3f000000u);
  } else {
    const uint32_t odd = (x >> 13) & 1u;
    x += 0xc8000fffu + odd;  // rebias the exponent (-112 << 23) and round
    magnitude = static_cast<uint16_t>(x >> 13);
  }
  return static_cast<uint16_t>(sign | magnitude);
}

float halfToFloatPortable(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

namespace {

inline uint16_t bf16FromFloat(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const uint32_t quietNan = (x >> 16) | 0x40u;
  return static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quietNan : rounded);
}

inline float floatFromBf16(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

// out = in (kAdd false) or out += in (kAdd true), from fp16.
template <bool kAdd>
void fromHalf(const std::byte* in, std::span<float> out) {
  const size_t n = out.size();
  float* dst = out.data();
  size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    // The masked forms avoid GCC 12's -Wmaybe-uninitialized on the plain ones.
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 2 * i));
    __m512 v = _mm512_mask_cvtph_ps(_mm512_setzero_ps(), 0xffff, h);
    if constexpr (kAdd) v = _mm512_add_ps(_mm512_loadu_ps(dst + i), v);
    _mm512_storeu_ps(dst + i, v);
  }
#elif defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i));
    __m256 v = _mm256_cvtph_ps(h);
    if constexpr (kAdd) v = _mm256_add_ps(_mm256_loadu_ps(dst + i), v);
    _mm256_storeu_ps(dst + i, v);
  }
#endif
  for (; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, in + 2 * i, 2);
    if constexpr (kAdd) {
      dst[i] += halfToFloatPortable(h);
    } else {
      dst[i] = halfToFloatPortable(h);
    }
  }
}

// Through a uint16_t chunk in cache, so that the loops vectorise (a store
// per element through std::byte* would not).
constexpr size_t kChunk = 4096;

template <bool kAdd>
void fromBf16(const std::byte* in, std::span<float> out) {
  uint16_t chunk[kChunk];
  for (size_t start = 0; start < out.size(); start += kChunk) {
    const size_t len = std::min(kChunk, out.size() - start);
    std::memcpy(chunk, in + 2 * start, 2 * len);
    float* dst = out.data() + start;
    for (size_t i = 0; i < len; ++i) {
      if constexpr (kAdd) {
        dst[i] += floatFromBf16(chunk[i]);
      } else {
        dst[i] = floatFromBf16(chunk[i]);
      }
    }
  }
}

}  // namespace

uint16_t floatToBf16(float value) {
  return bf16FromFloat(value);
}

float bf16ToFloat(uint16_t value) {
  return floatFromBf16(value);
}

void floatsToHalf(std::span<const float> in, std::byte* out) {
  const size_t n = in.size();
  size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm512_mask_cvtps_ph(_mm256_setzero_si256(), 0xffff, _mm512_loadu_ps(in.data() + i),
                                     _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * i), h);
  }
#elif defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in.data() + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), h);
  }
#endif
  for (; i < n; ++i) {
    uint16_t h = floatToHalfPortable(in[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

void halfToFloats(const std::byte* in, std::span<float> out) {
  fromHalf<false>(in, out);
}

void addHalfToFloats(const std::byte* in, std::span<float> out) {
  fromHalf<true>(in, out);
}

void floatsToBf16(std::span<const float> in, std::byte* out) {
  size_t done = 0;
#if defined(__AVX512F__)
  // bf16FromFloat on 16 lanes (GCC vector types: the _mm512 shift
  // intrinsics trip GCC 12's -Wmaybe-uninitialized), then vpmovdw narrows
  // to 16 bits. AVX512_BF16's vcvtneps2bf16 is not used: it flushes
  // subnormals to zero.
  using U32x16 = uint32_t __attribute__((vector_size(64)));
  using I32x16 = int32_t __attribute__((vector_size(64)));
  for (; done + 16 <= in.size(); done += 16) {
    U32x16 x;
    std::memcpy(&x, in.data() + done, 64);
    const U32x16 rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    const I32x16 nan = (x & 0x7fffffffu) > 0x7f800000u;  // lanes of all ones
    const U32x16 isNan = std::bit_cast<U32x16>(nan);
    const U32x16 h = (rounded & ~isNan) | (((x >> 16) | 0x40u) & isNan);
    const __m256i packed = _mm512_maskz_cvtepi32_epi16(0xffff, std::bit_cast<__m512i>(h));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * done), packed);
  }
#endif
  in = in.subspan(done);
  out += 2 * done;
  uint16_t chunk[kChunk];
  for (size_t start = 0; start < in.size(); start += kChunk) {
    const size_t len = std::min(kChunk, in.size() - start);
    const float* src = in.data() + start;
    for (size_t i = 0; i < len; ++i) chunk[i] = bf16FromFloat(src[i]);
    std::memcpy(out + 2 * start, chunk, 2 * len);
  }
}

void bf16ToFloats(const std::byte* in, std::span<float> out) {
  fromBf16<false>(in, out);
}

void addBf16ToFloats(const std::byte* in, std::span<float> out) {
  fromBf16<true>(in, out);
}

void widenHalf(HalfFormat format, const std::byte* in, std::span<float> out) {
  if (format == HalfFormat::kFp16) {
    halfToFloats(in, out);
  } else {
    bf16ToFloats(in, out);
  }
}

void addWidenedHalf(HalfFormat format, const std::byte* in, std::span<float> out) {
  if (format == HalfFormat::kFp16) {
    addHalfToFloats(in, out);
  } else {
    addBf16ToFloats(in, out);
  }
}

bool halfValuesFinite(HalfFormat format, const std::byte* in, size_t count) {
  const uint16_t mask = format == HalfFormat::kFp16 ? 0x7c00 : 0x7f80;
  uint16_t chunk[kChunk];
  uint16_t any = 0;  // OR of "exponent all ones": vectorises over the chunk
  for (size_t start = 0; start < count; start += kChunk) {
    const size_t len = std::min(kChunk, count - start);
    std::memcpy(chunk, in + 2 * start, 2 * len);
    for (size_t i = 0; i < len; ++i) any |= static_cast<uint16_t>((chunk[i] & mask) == mask);
    if (any != 0) return false;
  }
  return true;
}

}  // namespace tetrad
