// CounterRng (counter_rng.h) on 16 counters at a time, with AVX-512F, for
// the element loops of the stochastic compressors (qsgd, terngrad,
// natural). Every lane gives exactly the bits of the scalar functions, so a
// packet does not depend on whether these kernels ran; TETRAD_RNG_SIMD is 0
// (and nothing is declared) when the build does not target AVX-512F, and
// callers keep their scalar loops.
//
// Header-only pure functions; thread-safe. Compress-private.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "tetrad/compress/counter_rng.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#define TETRAD_RNG_SIMD 1
#else
#define TETRAD_RNG_SIMD 0
#endif

#if TETRAD_RNG_SIMD
namespace tetrad::simd {

// GCC vector types for the lane arithmetic (the _mm512 shift and convert
// intrinsics trip GCC 12's -Wmaybe-uninitialized); intrinsics for masks.
using U32x16 = uint32_t __attribute__((vector_size(64)));
using I32x16 = int32_t __attribute__((vector_size(64)));
using F32x16 = float __attribute__((vector_size(64)));

// lowBias32 in every lane.
inline U32x16 lowBias32(U32x16 x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// CounterRng::bits(key, counter) for the 16 counters of `counters`.
inline U32x16 rngBits(CounterRng::Key key, U32x16 counters) {
  return lowBias32(lowBias32(counters ^ key.a) ^ key.b);
}

// CounterRng::mixBits(key, counter) for 16 counters, given their Weyl terms
// counter * 0x9e3779b9 (mod 2^32), which the caller steps by addition.
inline U32x16 rngMixBits(CounterRng::Key key, U32x16 weyl) {
  return lowBias32(weyl ^ key.a) ^ key.b;
}

// How many leading floats of `p` to take one by one so that the vector loop
// after them loads whole 64-byte lines: a 16-float load that straddles two
// lines runs at about half speed when streaming from memory (a std::vector of
// megabytes starts 16 bytes into a page). At most `len`.
inline size_t alignedHead(const float* p, size_t len) {
  const size_t offset = reinterpret_cast<uintptr_t>(p) % 64;
  const size_t head = offset % sizeof(float) == 0 ? (64 - offset) % 64 / sizeof(float) : 0;
  return head < len ? head : len;
}

// Counters 0..15.
inline U32x16 firstCounters() {
  return U32x16{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
}

// CounterRng::uniform(bits) in every lane: (bits >> 8) · 2^-24, exact.
inline F32x16 uniform(U32x16 bits) {
  return __builtin_convertvector(std::bit_cast<I32x16>(bits >> 8), F32x16) * 0x1p-24f;
}

inline __m512i toM512i(U32x16 v) {
  return std::bit_cast<__m512i>(v);
}

// The low 16 bits of the 16 lanes of `v`, stored at dst.
inline void storeCodes(uint16_t* dst, U32x16 v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                      _mm512_maskz_cvtepi32_epi16(0xffff, toM512i(v)));
}

}  // namespace tetrad::simd
#endif
