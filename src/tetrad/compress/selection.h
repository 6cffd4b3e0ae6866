// Top-k selection by magnitude: the kernel under Top-k, DGC and gTop-k.
//
// selectTopK() writes the indices of the k elements of largest |x|, in
// ascending index order. Ties at the k-th magnitude are broken towards the
// lower index, so the result is a deterministic function of (x, k) and both
// methods return the same indices:
//   kExact   radix select on the magnitude bits: one histogram pass over the
//            top 11 bits of |x|, one pass collecting the bucket that holds
//            the k-th largest (then an 11-bit histogram and nth_element on
//            it), one output pass. O(n), three streaming passes.
//   kApprox  DGC-style sampled threshold (Lin et al. 2018): a sample of |x|
//            (~n/256 elements in short contiguous runs at random offsets)
//            gives a threshold a few standard deviations below the k/n
//            quantile; one pass keeps every element at or above it (about
//            1.1k-1.4k candidates), and a radix select over the candidates
//            trims them to exactly k. Whenever the candidates number at least
//            k, they contain the true top-k, so the trimmed result is exact;
//            in the rare case the sampled threshold is too high (fewer than k
//            candidates, probability ~1e-4 by the margin) or far too low (the
//            candidate buffer would exceed 8k), it falls back to kExact.
//            So the band is [k, k]: always exactly the top-k, one pass.
//            Tensors under 64Ki elements always use kExact.
// Magnitude order is the order of the IEEE bits with the sign cleared, so
// +-inf count as largest and NaN above them; -0 and +0 tie.
//
// selectAtLeast() keeps every index with |x| >= threshold (threshold
// sparsification), ascending.
//
// Hot paths do not allocate once warm: scratch buffers are thread_local and
// grow to the largest tensor seen by the thread; `indices` is resized by the
// callee (reuse it across calls to keep its capacity). Indices are 32-bit:
// tensors of 2^32 elements or more are refused (InvalidArgument).
//
// Thread-safety: pure functions; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tetrad {

enum class SelectionMethod { kExact, kApprox };

// Indices of the k largest |x| (k is clamped to x.size()), ascending.
void selectTopK(std::span<const float> x, size_t k, SelectionMethod method,
                std::vector<uint32_t>& indices);

// Elements kept at density `ratio` in (0, 1] of n: max(1, round(ratio·n)),
// at most n (0 when n == 0). Shared by Top-k, Random-k, DGC and gTop-k.
size_t keptCount(size_t n, double ratio);

// Indices i with |x[i]| >= threshold (threshold >= 0), ascending.
void selectAtLeast(std::span<const float> x, float threshold, std::vector<uint32_t>& indices);

// Magnitude key of one float: its bits with the sign cleared (monotone in |x|).
inline uint32_t magnitudeKey(float value) {
  uint32_t bits;
  static_assert(sizeof(bits) == sizeof(value));
  __builtin_memcpy(&bits, &value, sizeof(bits));
  return bits & 0x7fffffffu;
}

}  // namespace tetrad
