// Ring reduce-scatter (building_blocks.h).
//
// Cost for p members and n bytes (β per byte sent, γ per byte reduced):
//   T = (p-1)·α + (p-1)·⌈n/p⌉·β + (p-1)·⌈n/p⌉·γ
// which is (p-1)α + (p-1)/p·nβ + (p-1)/p·nγ when p divides n: bandwidth-
// optimal. Each step sends one block to the right neighbour and receives one
// from the left, concurrently.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/collectives/scratch.h"

namespace tetrad::detail {

void ringReduceScatter(Transport& transport, const Group& group, std::span<float> data, Tag tag) {
  const int p = group.size();
  if (p == 1) return;
  const int me = group.index;
  const int right = group.rankOf((me + 1) % p);
  const int left = group.rankOf((me + p - 1) % p);
  const bool compute = computesOnData(transport);
  Scratch scratch(compute ? largestBlock(data.size(), p) : 0);
  for (int step = 0; step < p - 1; ++step) {
    // Send the partial sum of block me-step-1, receive block me-step-2 from
    // the left and add it: after p-1 steps block `me` is complete.
    const BlockRange out = blockRange(data.size(), p, (me - step - 1 + 2 * p) % p);
    const BlockRange in = blockRange(data.size(), p, (me - step - 2 + 2 * p) % p);
    std::span<float> target = data.subspan(in.offset, in.count);
    std::span<float> incoming = compute ? scratch.span().first(in.count) : target;
    sendRecv(transport, right, asBytes(std::span<const float>(data.subspan(out.offset, out.count))),
             left, asWritableBytes(incoming), tag);
    if (compute) addInto(target, incoming);
  }
}

}  // namespace tetrad::detail
