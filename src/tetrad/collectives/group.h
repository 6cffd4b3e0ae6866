// Group: the subset of ranks an algorithm runs on (internal to collectives).
//
// Hierarchical all-reduce runs the same ring, tree and broadcast code on
// sub-groups of the world: the ranks of one node (consecutive ids) and the
// node leaders (every ranksPerNode()-th id). A Group is the arithmetic
// progression first, first + stride, ..., of `count` world ranks, with this
// rank at position `index` (-1 when this rank is not a member). It owns no
// memory, so building one per call is free even on 512 ranks.
//
// Thread-safety: plain value.
#pragma once

#include "tetrad/transport/transport.h"

namespace tetrad::detail {

struct Group {
  int first = 0;
  int stride = 1;
  int count = 1;
  int index = 0;

  static Group world(const Transport& transport) {
    return Group{0, 1, transport.size(), transport.rank()};
  }
  // The group {first, first + stride, ...} of `count` ranks, seen from `rank`.
  static Group of(int rank, int first, int stride, int count) {
    const int offset = rank - first;
    const bool member = offset >= 0 && offset % stride == 0 && offset / stride < count;
    return Group{first, stride, count, member ? offset / stride : -1};
  }
  int size() const { return count; }
  bool contains() const { return index >= 0; }
  // World rank of the member at position i (0 <= i < count).
  int rankOf(int i) const { return first + i * stride; }
};

}  // namespace tetrad::detail
