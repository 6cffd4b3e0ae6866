// Exact top-k selection by radix select on the magnitude bits (see
// selection.h, kExact).
//
// Cost on n elements (memory-bound; B = streaming bandwidth, 4n bytes/pass):
// 3 passes, ~12n/B, + a radix select on the one histogram bucket that holds
// the k-th largest. Measured (16Mi Gaussian floats, k = 1%, one core of an
// AVX-512 EPYC, see the SPARSE report): ~10-16 ms; torch::topk ~240 ms.
// No communication.
#include <algorithm>
#include <array>
#include <bit>
#include <functional>

#include "tetrad/compress/selection_kernels.h"

namespace tetrad::selection_internal {

KthKey kthLargestKey(uint32_t* keys, size_t count, size_t rank, uint32_t prefix, int firstLevel) {
  size_t greater = 0;
  constexpr int kShifts[2] = {kBinShift, kBinShift - 11};
  for (int level = firstLevel; level < 2 && count > 256; ++level) {
    const int shift = kShifts[level];
    std::array<uint32_t, kBins> hist{};
    for (size_t i = 0; i < count; ++i) ++hist[(keys[i] >> shift) & (kBins - 1)];
    size_t above = 0;
    size_t bin = kBins - 1;
    for (; above + hist[bin] < rank; --bin) above += hist[bin];
    rank -= above;
    greater += above;
    prefix = (prefix << 11) | static_cast<uint32_t>(bin);
    // Keep the bucket's keys (compaction in place: write index <= read index).
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
      const uint32_t key = keys[i];
      keys[kept] = key;
      kept += (key >> shift) == prefix ? 1 : 0;
    }
    count = kept;
  }
  std::nth_element(keys, keys + (rank - 1), keys + count, std::greater<uint32_t>());
  const uint32_t key = keys[rank - 1];
  greater += static_cast<size_t>(
      std::count_if(keys, keys + (rank - 1), [key](uint32_t other) { return other > key; }));
  return KthKey{key, greater};
}

void selectExact(std::span<const float> values, size_t k, std::vector<uint32_t>& indices) {
  const float* x = values.data();
  const size_t n = values.size();
  // Pass 1: histogram of the top 11 magnitude bits, four interleaved copies
  // so that runs of equal bins do not serialise on one counter.
  std::array<std::array<uint32_t, kBins>, 4> hist{};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++hist[0][keyAt(x, i) >> kBinShift];
    ++hist[1][keyAt(x, i + 1) >> kBinShift];
    ++hist[2][keyAt(x, i + 2) >> kBinShift];
    ++hist[3][keyAt(x, i + 3) >> kBinShift];
  }
  for (; i < n; ++i) ++hist[0][keyAt(x, i) >> kBinShift];
  size_t above = 0;
  size_t bin = kBins - 1;
  size_t binCount = 0;
  for (;; --bin) {
    binCount = size_t{hist[0][bin]} + hist[1][bin] + hist[2][bin] + hist[3][bin];
    if (above + binCount >= k) break;
    above += binCount;
  }
  // Pass 2: keys of the bucket that holds the k-th largest.
  Scratch& s = scratch();
  ensureSize(s.keys, binCount + 1);
  uint32_t* keys = s.keys.data();
  const uint32_t lo = static_cast<uint32_t>(bin) << kBinShift;
  const uint32_t hi = lo + (1u << kBinShift);
  size_t m = 0;
  for (i = 0; i + kBlock <= n; i += kBlock) {
    for (uint32_t mask = blockMask(x, i, lo, hi); mask != 0; mask &= mask - 1) {
      keys[m++] = keyAt(x, i + static_cast<size_t>(std::countr_zero(mask)));
    }
  }
  for (; i < n; ++i) {
    const uint32_t key = keyAt(x, i);
    if (key >= lo && key < hi) keys[m++] = key;
  }
  const KthKey kth = kthLargestKey(keys, m, k - above, static_cast<uint32_t>(bin), 1);
  // Pass 3: emit in index order.
  emitSelection(
      k, kth.key, above + kth.greater,
      [&](auto&& visit) { forEachKeyAtLeast(values, kth.key, visit); }, indices);
}

}  // namespace tetrad::selection_internal
