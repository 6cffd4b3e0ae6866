// Approximate-then-exact top-k selection by a DGC-style sampled threshold
// (see selection.h, kApprox).
//
// Cost on n elements (memory-bound; B = streaming bandwidth, 4n bytes/pass):
// 1 pass, ~4n/B, + a sample of ~n/256 and a radix select on the ~1.1k-1.4k
// candidates; when the threshold misses, plus selectExact (~12n/B).
// Measured (16Mi Gaussian floats, k = 1%, one core of an AVX-512 EPYC, see
// the SPARSE report): ~3.5 ms. No communication.
#include <algorithm>
#include <cmath>

#include "tetrad/compress/selection_kernels.h"

namespace tetrad::selection_internal {
namespace {

constexpr size_t kRunLength = 16;  // contiguous elements per sample run

// SplitMix64: a small, fast, well-mixed generator for sample offsets.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) (multiply-shift; bias < bound / 2^64, irrelevant here).
  uint64_t below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
  }
};

}  // namespace

bool selectApprox(std::span<const float> values, size_t k, std::vector<uint32_t>& indices) {
  const size_t n = values.size();
  const float* x = values.data();
  Scratch& s = scratch();
  // Sample ~n/256 keys (16Ki..128Ki) in runs of 16 at random offsets.
  const size_t runs = std::clamp<size_t>(n / 256, 16384, 131072) / kRunLength;
  const size_t sampleSize = runs * kRunLength;
  ensureSize(s.sample, sampleSize);
  SplitMix64 rng{n * 0x9e3779b97f4a7c15ull ^ k};
  for (size_t r = 0; r < runs; ++r) {
    const size_t start = rng.below(n - kRunLength + 1);
    for (size_t j = 0; j < kRunLength; ++j) s.sample[r * kRunLength + j] = keyAt(x, start + j);
  }
  // The sample rank a few standard deviations above its expected k/n share,
  // so that the threshold lies below the true k-th largest with high odds.
  const double expected = static_cast<double>(sampleSize) * static_cast<double>(k) / n;
  const size_t rank = static_cast<size_t>(std::ceil(expected + 4.0 * std::sqrt(expected) + 2.0));
  if (rank >= sampleSize) return false;
  const uint32_t threshold = kthLargestKey(s.sample.data(), sampleSize, rank).key;
  // One pass: every candidate at or above the threshold, with its key.
  const double expectedCandidates = static_cast<double>(n) * rank / sampleSize;
  const size_t capacity =
      std::min(n, std::max<size_t>(8 * k, static_cast<size_t>(2 * expectedCandidates)) + kBlock);
  ensureSize(s.candidates, capacity);
  ensureSize(s.keys, capacity);
  uint32_t* candidates = s.candidates.data();
  uint32_t* keys = s.keys.data();
  size_t m = 0;
  bool overflow = false;
  forEachKeyAtLeast(values, threshold, [&](size_t i, uint32_t key) {
    if (m == capacity) {
      overflow = true;
      return false;
    }
    candidates[m] = static_cast<uint32_t>(i);
    keys[m] = key;
    ++m;
    return true;
  });
  if (overflow || m < k) return false;
  // Trim the candidates (a superset of the top-k) to exactly k.
  ensureSize(s.keysCopy, m);
  std::copy(keys, keys + m, s.keysCopy.data());
  const KthKey kth = kthLargestKey(s.keysCopy.data(), m, k);
  emitSelection(
      k, kth.key, kth.greater,
      [&](auto&& visit) {
        for (size_t c = 0; c < m; ++c) {
          if (!visit(candidates[c], keys[c])) return;
        }
      },
      indices);
  return true;
}

}  // namespace tetrad::selection_internal
