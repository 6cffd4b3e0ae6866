// Shared helpers for the sparse-compression tests.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tetrad::testing {

// n floats drawn from N(0, 1) with a fixed seed.
inline std::vector<float> gaussian(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> values(n);
  for (float& v : values) v = normal(rng);
  return values;
}

inline double squaredNorm(const std::vector<float>& x) {
  double sum = 0;
  for (float v : x) sum += double{v} * v;
  return sum;
}

}  // namespace tetrad::testing
