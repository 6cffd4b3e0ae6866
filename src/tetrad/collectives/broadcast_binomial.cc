// Binomial-tree broadcast (building_blocks.h, broadcast.h).
//
// Cost for p members and n bytes: T = ⌈log2 p⌉·(α + nβ). In round k the
// 2^k ranks that have the message each send it to one more rank.
// Latency-optimal; for large messages scatter + all-gather (~2nβ) wins.
#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void binomialBroadcast(Transport& transport, const Group& group, MutableBytes data, int rootIndex,
                       Tag tag) {
  const int p = group.size();
  if (p == 1) return;
  const int v = (group.index - rootIndex + p) % p;  // position relative to the root
  int mask = 1;
  while (mask < p) {
    if (v & mask) {
      transport.recv(group.rankOf((v - mask + rootIndex) % p), tag, data);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < p) {
      transport.send(group.rankOf((v + mask + rootIndex) % p), tag, ConstBytes(data));
    }
  }
}

}  // namespace tetrad::detail
