// Binomial-tree reduce to a root (building_blocks.h).
//
// Cost for p members and n bytes: T = ⌈log2 p⌉·(α + nβ + nγ) at the root,
// which receives one whole vector per round. Latency-optimal for small
// messages; the bandwidth term grows with log2 p.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/collectives/scratch.h"

namespace tetrad::detail {

void binomialReduce(Transport& transport, const Group& group, std::span<float> data, int rootIndex,
                    Tag tag) {
  const int p = group.size();
  if (p == 1) return;
  const int v = (group.index - rootIndex + p) % p;  // position relative to the root
  const bool compute = computesOnData(transport);
  Scratch scratch(compute ? data.size() : 0);
  std::span<float> incoming = compute ? scratch.span() : data;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (v & mask) {
      transport.send(group.rankOf((v - mask + rootIndex) % p), tag,
                     asBytes(std::span<const float>(data)));
      return;
    }
    if (v + mask < p) {
      transport.recv(group.rankOf((v + mask + rootIndex) % p), tag, asWritableBytes(incoming));
      if (compute) addInto(data, incoming);
    }
  }
}

}  // namespace tetrad::detail
