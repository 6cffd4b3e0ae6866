#include "tetrad/collectives/reduce_ops.h"

#include "tetrad/core/error.h"

namespace tetrad {

void addInto(std::span<float> acc, std::span<const float> in) {
  TETRAD_CHECK(acc.size() == in.size(), InvalidArgument, "addInto: sizes differ ({} vs {})",
               acc.size(), in.size());
  float* __restrict a = acc.data();
  const float* __restrict b = in.data();
  const size_t n = acc.size();
  for (size_t i = 0; i < n; ++i) a[i] += b[i];
}

void addIntoThenDivide(std::span<float> acc, std::span<const float> in, float divisor) {
  TETRAD_CHECK(acc.size() == in.size(), InvalidArgument,
               "addIntoThenDivide: sizes differ ({} vs {})", acc.size(), in.size());
  float* __restrict a = acc.data();
  const float* __restrict b = in.data();
  const size_t n = acc.size();
  for (size_t i = 0; i < n; ++i) a[i] = (a[i] + b[i]) / divisor;
}

void divideBy(std::span<float> data, float divisor) {
  float* __restrict d = data.data();
  const size_t n = data.size();
  for (size_t i = 0; i < n; ++i) d[i] /= divisor;
}

void finishReduction(std::span<float> data, ReduceOp op, int worldSize) {
  if (op == ReduceOp::kAverage && worldSize > 1) divideBy(data, static_cast<float>(worldSize));
}

}  // namespace tetrad
