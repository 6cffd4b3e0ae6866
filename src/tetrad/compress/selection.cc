// Top-k selection by magnitude: the public entry points (see selection.h).
//
// Dispatches to the two methods, each in its own file with its cost:
//   kExact   selection_exact.cc   3 passes, ~12n/B (B = streaming bandwidth);
//   kApprox  selection_approx.cc  1 pass, ~4n/B, falling back to kExact.
// selectAtLeast is one pass, ~4n/B. Shared kernels: selection_kernels.h.
// Measured (16Mi Gaussian floats, k = 1%, one core of an AVX-512 EPYC, see
// the SPARSE report): approx ~3.5 ms, exact ~10-16 ms; torch::topk ~240 ms.
// No communication.
#include "tetrad/compress/selection.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tetrad/compress/selection_kernels.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace selection_internal {

Scratch& scratch() {
  thread_local Scratch instance;
  return instance;
}

}  // namespace selection_internal

namespace {

void checkSize(size_t n) {
  TETRAD_CHECK(n < (size_t{1} << 32), InvalidArgument,
               "top-k selection supports tensors of fewer than 2^32 elements, got {}", n);
}

}  // namespace

size_t keptCount(size_t n, double ratio) {
  if (n == 0) return 0;
  const double k = std::round(ratio * static_cast<double>(n));
  return k < 1 ? 1 : std::min(n, static_cast<size_t>(k));
}

void selectTopK(std::span<const float> x, size_t k, SelectionMethod method,
                std::vector<uint32_t>& indices) {
  const size_t n = x.size();
  checkSize(n);
  k = std::min(k, n);
  if (k == 0) {
    indices.clear();
    return;
  }
  if (k == n) {
    indices.resize(n);
    std::iota(indices.begin(), indices.end(), 0u);
    return;
  }
  if (method == SelectionMethod::kApprox && n >= selection_internal::kApproxMinSize &&
      selection_internal::selectApprox(x, k, indices)) {
    return;
  }
  selection_internal::selectExact(x, k, indices);
}

void selectAtLeast(std::span<const float> x, float threshold, std::vector<uint32_t>& indices) {
  checkSize(x.size());
  TETRAD_CHECK(threshold >= 0, InvalidArgument, "selection threshold must be >= 0, got {}",
               threshold);
  indices.clear();
  selection_internal::forEachKeyAtLeast(x, magnitudeKey(threshold), [&](size_t i, uint32_t) {
    indices.push_back(static_cast<uint32_t>(i));
    return true;
  });
}

}  // namespace tetrad
