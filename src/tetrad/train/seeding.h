// Seed mixing for the trainer's random streams (shuffles, partitions,
// synthetic data, compute noise): every stream is derived from --seed and a
// stream id, so runs are reproducible and streams are independent.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "tetrad/core/seed.h"

namespace tetrad::train {

using tetrad::mixSeed;

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
