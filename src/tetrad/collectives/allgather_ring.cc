// Ring all-gather (building_blocks.h, allgather.h).
//
// Cost for p members and n bytes in all (block i of b_i bytes):
//   T = (p-1)·α + Σ_step max_i b_i · β   ≈ (p-1)α + (p-1)/p·nβ
// Bandwidth-optimal; latency linear in p. Each step forwards to the right the
// block received from the left in the previous step.
#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void ringAllgatherv(Transport& transport, const Group& group, MutableBytes data,
                    std::span<const BlockRange> blocks, Tag tag) {
  const int p = group.size();
  if (p == 1) return;
  const int me = group.index;
  const int right = group.rankOf((me + 1) % p);
  const int left = group.rankOf((me + p - 1) % p);
  for (int step = 0; step < p - 1; ++step) {
    const BlockRange out = blocks[(me - step + p) % p];
    const BlockRange in = blocks[(me - step - 1 + 2 * p) % p];
    sendRecv(transport, right, ConstBytes(data.subspan(out.offset, out.count)), left,
             data.subspan(in.offset, in.count), tag);
  }
}

}  // namespace tetrad::detail
