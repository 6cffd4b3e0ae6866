// Binomial-tree reduce to a root (building_blocks.h).
//
// Cost for p members and n bytes: T = ⌈log2 p⌉·(α + nβ + nγ) at the root,
// which receives one whole vector per round. Latency-optimal for small
// messages; the bandwidth term grows with log2 p. n counts wire bytes.
#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void binomialReduce(Transport& transport, const Group& group, WireImage& image, int rootIndex,
                    Tag tag) {
  const int p = group.size();
  if (p == 1) return;
  const int v = (group.index - rootIndex + p) % p;  // position relative to the root
  const BlockRange all = image.all();
  // A member that receives at all has a child at distance 1.
  const bool receives = (v & 1) == 0 && v + 1 < p;
  WireInbox inbox(image, receives ? image.size() : 0);
  for (int mask = 1; mask < p; mask <<= 1) {
    if (v & mask) {
      image.encode(all);
      transport.send(group.rankOf((v - mask + rootIndex) % p), tag, image.bytes());
      return;
    }
    if (v + mask < p) {
      transport.recv(group.rankOf((v + mask + rootIndex) % p), tag, inbox.buffer(all));
      inbox.addTo(all);
    }
  }
}

}  // namespace tetrad::detail
