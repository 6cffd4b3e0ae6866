// Ring all-reduce: ring reduce-scatter, then ring all-gather.
//
// Cost for p ranks and n bytes (β per byte sent, γ per byte reduced):
//   T = 2(p-1)·α + 2(p-1)·⌈n/p⌉·β + (p-1)·⌈n/p⌉·γ
// i.e. 2(p-1)α + 2(p-1)/p·nβ + (p-1)/p·nγ when p divides n. Bandwidth-
// optimal, latency linear in p: the choice for large messages on flat
// networks. Any p, no special case for non-powers of two.
// Sum order of block b: x[b+1] + x[b+2] + ... + x[p-1] + x[0] + ... + x[b]
// (left to right); the result is bit-identical on every rank.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad::detail {

void ringAllreduce(Transport& transport, const Group& group, std::span<float> data, ReduceOp op,
                   int divisor, Tag tag) {
  const int p = group.size();
  if (p == 1) {
    if (computesOnData(transport)) finishReduction(data, op, divisor);
    return;
  }
  ringReduceScatter(transport, group, data, tag);
  const BlockRange mine = blockRange(data.size(), p, group.index);
  if (computesOnData(transport))
    finishReduction(data.subspan(mine.offset, mine.count), op, divisor);
  std::vector<BlockRange> blocks(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) {
    const BlockRange b = blockRange(data.size(), p, i);
    blocks[i] = BlockRange{b.offset * sizeof(float), b.count * sizeof(float)};
  }
  ringAllgatherv(transport, group, asWritableBytes(data), blocks, tag + 1);
}

void allreduceRing(Transport& transport, std::span<float> data, ReduceOp op, Tag tag) {
  ringAllreduce(transport, Group::world(transport), data, op, transport.size(), tag);
}

}  // namespace tetrad::detail
