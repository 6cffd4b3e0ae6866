// Ring reduce-scatter (building_blocks.h).
//
// Cost for p members and n bytes (β per byte sent, γ per byte reduced):
//   T = (p-1)·α + (p-1)·⌈n/p⌉·β + (p-1)·⌈n/p⌉·γ
// which is (p-1)α + (p-1)/p·nβ + (p-1)/p·nγ when p divides n: bandwidth-
// optimal. Each step sends one block to the right neighbour and receives one
// from the left, concurrently. n counts wire bytes: with a 16-bit
// WirePrecision n = 2·count, so the β term halves.
#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void ringReduceScatter(Transport& transport, const Group& group, WireImage& image, Tag tag,
                       float finalDivisor) {
  const int p = group.size();
  if (p == 1) return;
  const int me = group.index;
  const int right = group.rankOf((me + 1) % p);
  const int left = group.rankOf((me + p - 1) % p);
  const size_t n = image.size();
  WireInbox inbox(image, largestBlock(n, p));
  for (int step = 0; step < p - 1; ++step) {
    // Send the partial sum of block me-step-1, receive block me-step-2 from
    // the left and add it: after p-1 steps block `me` is complete.
    const BlockRange out = blockRange(n, p, (me - step - 1 + 2 * p) % p);
    const BlockRange in = blockRange(n, p, (me - step - 2 + 2 * p) % p);
    // The last step receives block `me` and finishes it.
    sendRecvAdd(transport, image, right, out, inbox, left, in, tag,
                step == p - 2 ? finalDivisor : 1.0f);
  }
}

}  // namespace tetrad::detail
