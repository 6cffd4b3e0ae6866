// Scatter + all-gather broadcast (van de Geijn), for large messages
// (building_blocks.h, broadcast.h).
//
// Cost for p ranks and n bytes:
//   T = ⌈log2 p⌉·α + (p-1)/p·nβ        (binomial scatter of p blocks)
//     + (p-1)·α + (p-1)/p·nβ           (ring all-gather)
// ≈ 2nβ for large n, against ⌈log2 p⌉·nβ for the binomial tree; the
// latency term is linear in p. Any p.
// Blocks are numbered by position relative to the root, so that every
// subtree of the scatter owns a contiguous byte range.
#include <algorithm>

#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void broadcastScatterAllgather(Transport& transport, MutableBytes data, int root, Tag tag) {
  const int p = transport.size();
  if (p == 1) return;
  const int v = (transport.rank() - root + p) % p;
  const size_t n = data.size();
  auto rankOf = [&](int relative) { return (relative + root) % p; };
  // Bytes of the blocks of relative positions [first, end).
  auto range = [&](int first, int end) {
    const size_t begin = blockRange(n, p, first).offset;
    return data.subspan(begin, blockRange(n, p, end - 1).end() - begin);
  };

  // Binomial scatter: receive the blocks of my subtree [v, v + mask) from
  // the parent, then hand each child subtree its blocks.
  int mask = 1;
  while (mask < p) {
    if (v & mask) {
      transport.recv(rankOf(v - mask), tag, range(v, std::min(v + mask, p)));
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < p) {
      transport.send(rankOf(v + mask), tag, ConstBytes(range(v + mask, std::min(v + 2 * mask, p))));
    }
  }

  // Ring all-gather of the blocks, indexed by world rank.
  std::vector<BlockRange> blocks(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) blocks[r] = blockRange(n, p, (r - root + p) % p);
  ringAllgatherv(transport, Group::world(transport), data, blocks, tag + 1);
}

}  // namespace tetrad::detail
