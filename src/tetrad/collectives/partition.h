// How the collectives split a vector of n elements into `parts` blocks.
//
// Block i covers [offset, offset + count) with count = n / parts, plus one
// for the first n % parts blocks, so block sizes differ by at most one and
// blocks may be empty when n < parts. Reduce-scatter leaves block r on rank
// r; ring and halving-doubling all-reduce use the same blocks.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>

namespace tetrad {

struct BlockRange {
  size_t offset = 0;
  size_t count = 0;
  size_t end() const { return offset + count; }
};

inline BlockRange blockRange(size_t n, int parts, int index) {
  const size_t p = static_cast<size_t>(parts);
  const size_t i = static_cast<size_t>(index);
  const size_t base = n / p;
  const size_t extra = n % p;
  return BlockRange{i * base + (i < extra ? i : extra), base + (i < extra ? 1 : 0)};
}

// The largest block of a split of n into `parts` (the ceiling of n / parts).
inline size_t largestBlock(size_t n, int parts) {
  const size_t p = static_cast<size_t>(parts);
  return n / p + (n % p != 0 ? 1 : 0);
}

}  // namespace tetrad
