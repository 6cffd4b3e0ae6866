// Seed mixing for the trainer's random streams (shuffles, partitions,
// synthetic data, compute noise): every stream is derived from --seed and a
// stream id, so runs are reproducible and streams are independent.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tetrad::train {

// SplitMix64 finaliser of (seed, stream).
inline uint64_t mixSeed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Fisher–Yates shuffle with a fixed algorithm (std::shuffle's is
// implementation-defined), so orders are the same on every platform.
template <typename T>
void shuffleInPlace(std::vector<T>& values, std::mt19937_64& rng) {
  for (size_t i = values.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng() % i);
    std::swap(values[i - 1], values[j]);
  }
}

}  // namespace tetrad::train
