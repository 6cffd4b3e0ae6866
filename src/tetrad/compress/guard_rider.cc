// scanNonFinite (guard_rider.h): 0·x is 0 for every finite x and NaN for
// ±Inf and NaN, so sixteen independent accumulators of 0·x (which the
// compiler vectorises) are all zero exactly when every element is finite;
// only then is the slow per-element search needed.
#include "tetrad/compress/guard_rider.h"

#include <cmath>

namespace tetrad {

int64_t scanNonFinite(std::span<const float> values, bool* isInf) {
  constexpr size_t kLanes = 16;
  float lanes[kLanes] = {};
  const float* x = values.data();
  const size_t n = values.size();
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) lanes[j] += 0.0f * x[i + j];
  }
  float tail = 0;
  for (; i < n; ++i) tail += 0.0f * x[i];
  bool finite = tail == 0.0f;
  for (size_t j = 0; j < kLanes; ++j) finite = finite && lanes[j] == 0.0f;
  if (finite) return -1;
  for (size_t k = 0; k < n; ++k) {
    if (!std::isfinite(x[k])) {
      if (isInf != nullptr) *isInf = std::isinf(x[k]);
      return int64_t(k);
    }
  }
  return -1;
}

}  // namespace tetrad
