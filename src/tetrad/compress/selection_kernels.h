// Internal kernels shared by the top-k selection files (selection.cc,
// selection_exact.cc, selection_approx.cc); not part of the public API —
// include selection.h instead.
//
// Holds what both selection methods need: the magnitude key of an element,
// the 16-element mask test (AVX-512, AVX2 or scalar) and the ascending scan
// built on it, the thread_local scratch buffers, the radix select of the
// k-th largest key, and the pass that emits the k selected indices. The two
// top-level methods are declared here and defined in their own files:
//   selectExact   (selection_exact.cc)  three streaming passes, always exact;
//   selectApprox  (selection_approx.cc) sampled threshold, one pass, may miss.
//
// Thread-safety: pure functions over caller-owned data plus this thread's
// own scratch(); any thread.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "tetrad/core/error.h"

namespace tetrad::selection_internal {

constexpr size_t kApproxMinSize = size_t{1} << 16;
constexpr int kBinShift = 20;  // 31 magnitude bits -> 11-bit bins
constexpr size_t kBins = size_t{1} << (31 - kBinShift);
constexpr size_t kBlock = 16;  // elements per mask test

inline uint32_t keyAt(const float* x, size_t i) {
  return std::bit_cast<uint32_t>(x[i]) & 0x7fffffffu;
}

// Bit j set when lo <= key of x[i + j] < hi, j < kBlock (hi = 2^31: no bound).
inline uint32_t blockMask(const float* x, size_t i, uint32_t lo, uint32_t hi = 0x80000000u) {
#if defined(__AVX512F__)
  const __m512i bits = _mm512_and_si512(_mm512_loadu_si512(x + i), _mm512_set1_epi32(0x7fffffff));
  return _mm512_mask_cmplt_epu32_mask(
      _mm512_cmpge_epu32_mask(bits, _mm512_set1_epi32(static_cast<int>(lo))), bits,
      _mm512_set1_epi32(static_cast<int>(hi)));
#elif defined(__AVX2__)
  // Keys are < 2^31, so signed compares order them; hi == 2^31 means "none".
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
  const __m256i loMinus1 = _mm256_set1_epi32(static_cast<int>(lo) - 1);
  const __m256i hiVec = _mm256_set1_epi32(static_cast<int>(hi & 0x7fffffffu));
  uint32_t mask = 0;
  for (size_t half = 0; half < 2; ++half) {
    const __m256i bits = _mm256_and_si256(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 8 * half)), magnitude);
    __m256i in = _mm256_cmpgt_epi32(bits, loMinus1);
    if (hi != 0x80000000u) in = _mm256_and_si256(in, _mm256_cmpgt_epi32(hiVec, bits));
    mask |= static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(in))) << (8 * half);
  }
  return mask;
#else
  uint32_t mask = 0;
  for (size_t j = 0; j < kBlock; ++j) {
    const uint32_t key = keyAt(x, i + j);
    mask |= (key >= lo && key < hi ? 1u : 0u) << j;
  }
  return mask;
#endif
}

// Calls visit(i, key) for every i with key >= threshold, in ascending order,
// until visit returns false. Blocks without a hit cost one compare.
template <typename Visit>
inline void forEachKeyAtLeast(std::span<const float> values, uint32_t threshold, Visit&& visit) {
  const float* x = values.data();
  const size_t n = values.size();
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (uint32_t mask = blockMask(x, i, threshold); mask != 0; mask &= mask - 1) {
      const size_t j = i + static_cast<size_t>(std::countr_zero(mask));
      if (!visit(j, keyAt(x, j))) return;
    }
  }
  for (; i < n; ++i) {
    const uint32_t key = keyAt(x, i);
    if (key >= threshold && !visit(i, key)) return;
  }
}

// This thread's scratch buffers (defined in selection.cc); they only grow.
struct Scratch {
  std::vector<uint32_t> keys;        // bucket or candidate keys
  std::vector<uint32_t> keysCopy;    // for nth_element
  std::vector<uint32_t> candidates;  // candidate indices (approx)
  std::vector<uint32_t> sample;      // sampled keys (approx)
};

Scratch& scratch();

template <typename T>
void ensureSize(std::vector<T>& v, size_t size) {
  if (v.size() < size) v.resize(size);
}

// The `rank`-th largest (1-based, rank <= count) of keys[0..count) and how
// many keys are strictly greater. Two levels of 11-bit radix histograms
// narrow the search to the keys sharing its top 22 bits, then nth_element
// finishes. `keys` is overwritten (used as scratch for the narrowed buckets).
// A caller that has already done level 0 (all keys share the top 11 bits
// `prefix`) passes firstLevel = 1. Defined in selection_exact.cc.
struct KthKey {
  uint32_t key;
  size_t greater;
};
KthKey kthLargestKey(uint32_t* keys, size_t count, size_t rank, uint32_t prefix = 0,
                     int firstLevel = 0);

// Writes the k indices of largest key, given that the k-th largest key is
// `kth` and that `greater` elements overall have a key > kth: every index
// with key > kth, then the lowest-index (k - greater) with key == kth.
// `source` yields (index, key) pairs in ascending index order.
template <typename Source>
void emitSelection(size_t k, uint32_t kth, size_t greater, Source&& source,
                   std::vector<uint32_t>& indices) {
  indices.resize(k);
  size_t written = 0;
  size_t equalLeft = k - greater;
  source([&](size_t i, uint32_t key) {
    if (key > kth || (key == kth && equalLeft > 0)) {
      if (key == kth) --equalLeft;
      indices[written++] = static_cast<uint32_t>(i);
    }
    return written < k;
  });
  TETRAD_CHECK(written == k, Error, "top-k selection wrote {} of {} indices", written, k);
}

// Exact top-k of `values` (0 < k < n) by radix select (selection_exact.cc).
void selectExact(std::span<const float> values, size_t k, std::vector<uint32_t>& indices);

// Sampled-threshold top-k (0 < k < n, n >= kApproxMinSize; selection_approx.cc).
// Returns false (and leaves `indices` unspecified) when the sampled threshold
// missed; the caller then runs selectExact.
bool selectApprox(std::span<const float> values, size_t k, std::vector<uint32_t>& indices);

}  // namespace tetrad::selection_internal
