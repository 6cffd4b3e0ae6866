// Seed mixing: every random stream of a run (shuffles, partitions, synthetic
// data, compute noise, compressor states) is derived from --seed and a
// stream id, so runs are reproducible and streams are independent.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

namespace tetrad {

// SplitMix64 finaliser of (seed, stream).
inline uint64_t mixSeed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace tetrad
