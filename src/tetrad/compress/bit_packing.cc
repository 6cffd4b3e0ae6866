// Bit packing (see bit_packing.h). Codes are packed 64 at a time into b
// 64-bit words with fully unrolled shifts (one template instance per b), or,
// with AVX-512 VBMI, 32 at a time in SIMD registers (packSimd32); sign bits
// with the CPU's sign-mask instructions where available.
//
// Cost: O(n) integer operations, one pass; no per-element branches.
#include "tetrad/compress/bit_packing.h"

#include <array>
#include <bit>
#include <cstring>
#include <utility>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX512BW__) && defined(__AVX512VBMI__)
#define TETRAD_PACK_SIMD 1
#endif

#include "tetrad/core/error.h"

namespace tetrad {
namespace {

template <unsigned B>
inline void packBlock(const uint16_t* codes, uint64_t* words) {
  constexpr uint64_t kMask = (uint64_t{1} << B) - 1;
  for (unsigned w = 0; w < B; ++w) words[w] = 0;
#pragma GCC unroll 64
  for (unsigned i = 0; i < 64; ++i) {
    const unsigned bit = i * B, w = bit / 64, o = bit % 64;
    const uint64_t c = codes[i] & kMask;
    words[w] |= c << o;
    if (o + B > 64) words[w + 1] |= c >> (64 - o);
  }
}

template <unsigned B>
inline void unpackBlock(const uint64_t* words, uint16_t* codes) {
  constexpr uint64_t kMask = (uint64_t{1} << B) - 1;
#pragma GCC unroll 64
  for (unsigned i = 0; i < 64; ++i) {
    const unsigned bit = i * B, w = bit / 64, o = bit % 64;
    uint64_t v = words[w] >> o;
    if (o + B > 64) v |= words[w + 1] << (64 - o);
    codes[i] = static_cast<uint16_t>(v & kMask);
  }
}

#if TETRAD_PACK_SIMD
// Byte k < 4·B of the packed output comes from byte k % B of 128-bit lane k / B.
template <unsigned B>
constexpr std::array<uint8_t, 64> gatherIndex() {
  std::array<uint8_t, 64> index{};
  for (unsigned k = 0; k < 4 * B; ++k) index[k] = static_cast<uint8_t>(16 * (k / B) + k % B);
  return index;
}

// 32 codes of B bits -> 4·B bytes at dst. The fields are merged pairwise
// three times, so that 32-, 64- and then 128-bit lanes hold 2, 4 and 8
// codes contiguously from bit 0 (8·B bits = B bytes per 128-bit lane); one
// byte permutation then gathers those B bytes of each lane. Shifts use GCC
// vector types (the _mm512 shift intrinsics trip GCC 12's
// -Wmaybe-uninitialized), permutation and store use intrinsics.
using U32x16 = uint32_t __attribute__((vector_size(64)));
using U64x8 = uint64_t __attribute__((vector_size(64)));

template <unsigned B>
inline void packSimd32(const uint16_t* codes, std::byte* dst) {
  static constexpr std::array<uint8_t, 64> kIndex = gatherIndex<B>();
  constexpr __mmask64 kStore = 4 * B == 64 ? ~__mmask64{0} : (__mmask64{1} << (4 * B)) - 1;
  constexpr uint32_t kMask = (1u << B) - 1;
  U32x16 c;
  std::memcpy(&c, codes, 64);
  // 32-bit lanes: lo16 | hi16 << B.
  const U32x16 pairs = (c & kMask) | (((c >> 16) & kMask) << B);
  // 64-bit lanes: lo32 | hi32 << 2B.
  const U64x8 p = std::bit_cast<U64x8>(pairs);
  const U64x8 quads = (p & 0xffffffffu) | ((p >> 32) << (2 * B));
  // 128-bit lanes: low half lo64 | hi64 << 4B, high half hi64 >> (64 - 4B).
  U64x8 octets;
  if constexpr (B == 16) {
    octets = quads;
  } else {
    const U64x8 up = quads << (4 * B), carry = quads >> (64 - 4 * B);
    const __m512i upLow = _mm512_bsrli_epi128(std::bit_cast<__m512i>(up), 8);
    octets = std::bit_cast<U64x8>(_mm512_mask_blend_epi64(
        0xaa, std::bit_cast<__m512i>(quads) | upLow, std::bit_cast<__m512i>(carry)));
  }
  const __m512i bytes = _mm512_maskz_permutexvar_epi8(
      ~__mmask64{0}, _mm512_loadu_si512(kIndex.data()), std::bit_cast<__m512i>(octets));
  _mm512_mask_storeu_epi8(dst, kStore, bytes);
}
#endif

template <unsigned B>
void packAll(std::span<const uint16_t> codes, MutableBytes out) {
  const size_t n = codes.size(), full = n / 64;
  std::byte* dst = out.data();
  uint64_t words[B];
  for (size_t blk = 0; blk < full; ++blk) {
#if TETRAD_PACK_SIMD
    packSimd32<B>(codes.data() + blk * 64, dst + blk * 8 * B);
    packSimd32<B>(codes.data() + blk * 64 + 32, dst + blk * 8 * B + 4 * B);
#else
    packBlock<B>(codes.data() + blk * 64, words);
    std::memcpy(dst + blk * 8 * B, words, 8 * B);
#endif
  }
  const size_t rest = n - full * 64;
  if (rest > 0) {
    uint16_t tail[64] = {};
    std::memcpy(tail, codes.data() + full * 64, rest * sizeof(uint16_t));
    packBlock<B>(tail, words);
    std::memcpy(dst + full * 8 * B, words, out.size() - full * 8 * B);
  }
}

template <unsigned B>
void unpackAll(ConstBytes in, std::span<uint16_t> codes) {
  const size_t n = codes.size(), full = n / 64;
  const std::byte* src = in.data();
  uint64_t words[B];
  for (size_t blk = 0; blk < full; ++blk) {
    std::memcpy(words, src + blk * 8 * B, 8 * B);
    unpackBlock<B>(words, codes.data() + blk * 64);
  }
  const size_t rest = n - full * 64;
  if (rest > 0) {
    uint64_t tailWords[B] = {};
    std::memcpy(tailWords, src + full * 8 * B, in.size() - full * 8 * B);
    uint16_t tail[64];
    unpackBlock<B>(tailWords, tail);
    std::memcpy(codes.data() + full * 64, tail, rest * sizeof(uint16_t));
  }
}

using PackFn = void (*)(std::span<const uint16_t>, MutableBytes);
using UnpackFn = void (*)(ConstBytes, std::span<uint16_t>);

template <size_t... I>
constexpr std::array<PackFn, 16> packTable(std::index_sequence<I...>) {
  return {&packAll<I + 1>...};
}
template <size_t... I>
constexpr std::array<UnpackFn, 16> unpackTable(std::index_sequence<I...>) {
  return {&unpackAll<I + 1>...};
}
constexpr auto kPack = packTable(std::make_index_sequence<16>());
constexpr auto kUnpack = unpackTable(std::make_index_sequence<16>());

// The sign bits of 64 consecutive floats.
inline uint64_t signWord(const float* p) {
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  uint64_t w = 0;
  for (int k = 0; k < 4; ++k) {
    __m512i v = _mm512_castps_si512(_mm512_loadu_ps(p + 16 * k));
    w |= static_cast<uint64_t>(_mm512_movepi32_mask(v)) << (16 * k);
  }
  return w;
#elif defined(__AVX2__)
  uint64_t w = 0;
  for (int k = 0; k < 8; ++k) {
    w |= static_cast<uint64_t>(_mm256_movemask_ps(_mm256_loadu_ps(p + 8 * k))) << (8 * k);
  }
  return w;
#else
  uint64_t w = 0;
  for (int j = 0; j < 64; ++j) {
    uint32_t bits;
    std::memcpy(&bits, p + j, 4);
    w |= static_cast<uint64_t>(bits >> 31) << j;
  }
  return w;
#endif
}

// out[j] += bit j of w ? negative : positive, for 64 floats.
inline void addSignWord(uint64_t w, float positive, float negative, float* out) {
#if defined(__AVX512F__)
  const __m512 pos = _mm512_set1_ps(positive), neg = _mm512_set1_ps(negative);
  for (int k = 0; k < 4; ++k) {
    __mmask16 m = static_cast<__mmask16>(w >> (16 * k));
    __m512 v = _mm512_mask_blend_ps(m, pos, neg);
    _mm512_storeu_ps(out + 16 * k, _mm512_add_ps(_mm512_loadu_ps(out + 16 * k), v));
  }
#elif defined(__AVX2__)
  const __m256 pos = _mm256_set1_ps(positive), neg = _mm256_set1_ps(negative);
  const __m256i select = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  for (int k = 0; k < 8; ++k) {
    __m256i b = _mm256_set1_epi32(static_cast<int>((w >> (8 * k)) & 0xff));
    __m256 m = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(b, select), select));
    __m256 v = _mm256_blendv_ps(pos, neg, m);
    _mm256_storeu_ps(out + 8 * k, _mm256_add_ps(_mm256_loadu_ps(out + 8 * k), v));
  }
#else
  for (int j = 0; j < 64; ++j) out[j] += ((w >> j) & 1) ? negative : positive;
#endif
}

}  // namespace

void packCodes(std::span<const uint16_t> codes, unsigned bits, MutableBytes out) {
  TETRAD_CHECK(bits >= 1 && bits <= 16, InvalidArgument, "packCodes: {} bits not in [1, 16]", bits);
  TETRAD_CHECK(out.size() == packedBytes(codes.size(), bits), InvalidArgument,
               "packCodes: {} codes of {} bits need {} bytes, got {}", codes.size(), bits,
               packedBytes(codes.size(), bits), out.size());
  kPack[bits - 1](codes, out);
}

void unpackCodes(ConstBytes in, unsigned bits, std::span<uint16_t> codes) {
  TETRAD_CHECK(bits >= 1 && bits <= 16, ProtocolError, "unpackCodes: {} bits not in [1, 16]", bits);
  TETRAD_CHECK(in.size() == packedBytes(codes.size(), bits), ProtocolError,
               "bit-packed payload of {} codes x {} bits must be {} bytes, got {}", codes.size(),
               bits, packedBytes(codes.size(), bits), in.size());
  kUnpack[bits - 1](in, codes);
}

void packSignBits(std::span<const float> values, MutableBytes out) {
  TETRAD_CHECK(out.size() == packedBytes(values.size(), 1), InvalidArgument,
               "packSignBits: {} values need {} bytes, got {}", values.size(),
               packedBytes(values.size(), 1), out.size());
  const size_t n = values.size(), full = n / 64;
  for (size_t blk = 0; blk < full; ++blk) {
    uint64_t w = signWord(values.data() + blk * 64);
    std::memcpy(out.data() + blk * 8, &w, 8);
  }
  const size_t rest = n - full * 64;
  if (rest > 0) {
    float tail[64] = {};
    std::memcpy(tail, values.data() + full * 64, rest * sizeof(float));
    uint64_t w = signWord(tail);
    std::memcpy(out.data() + full * 8, &w, out.size() - full * 8);
  }
}

void addSignValues(ConstBytes in, float positive, float negative, std::span<float> out) {
  TETRAD_CHECK(in.size() == packedBytes(out.size(), 1), ProtocolError,
               "sign payload of {} elements must be {} bytes, got {}", out.size(),
               packedBytes(out.size(), 1), in.size());
  const size_t n = out.size(), full = n / 64;
  for (size_t blk = 0; blk < full; ++blk) {
    uint64_t w;
    std::memcpy(&w, in.data() + blk * 8, 8);
    addSignWord(w, positive, negative, out.data() + blk * 64);
  }
  const size_t rest = n - full * 64;
  if (rest > 0) {
    uint64_t w = 0;
    std::memcpy(&w, in.data() + full * 8, in.size() - full * 8);
    float tail[64];
    std::memcpy(tail, out.data() + full * 64, rest * sizeof(float));
    addSignWord(w, positive, negative, tail);
    std::memcpy(out.data() + full * 64, tail, rest * sizeof(float));
  }
}

}  // namespace tetrad
