// Ring all-reduce: ring reduce-scatter, then ring all-gather.
//
// Cost for p ranks and n bytes (β per byte sent, γ per byte reduced):
//   T = 2(p-1)·α + 2(p-1)·⌈n/p⌉·β + (p-1)·⌈n/p⌉·γ
// i.e. 2(p-1)α + 2(p-1)/p·nβ + (p-1)/p·nγ when p divides n. Bandwidth-
// optimal, latency linear in p: the choice for large messages on flat
// networks. Any p, no special case for non-powers of two. n counts wire
// bytes: 4·count for float32, 2·count with a 16-bit WirePrecision (the β
// term halves; each rank then sends exactly half the bytes).
// Sum order of block b: x[b+1] + x[b+2] + ... + x[p-1] + x[0] + ... + x[b]
// (left to right); the result is bit-identical on every rank. 16-bit wire:
// each forwarded partial sum is rounded to the wire, and the owner of block
// b rounds the finished block before the all-gather distributes it.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad::detail {

void ringAllreduce(Transport& transport, const Group& group, WireImage& image, ReduceOp op,
                   int divisor, Tag tag) {
  const int p = group.size();
  const size_t n = image.size();
  if (p == 1) {
    if (image.compute()) finishReduction(image.data(), op, divisor);
    image.round(image.all());
    return;
  }
  // The average's division is fused into the last addition of this rank's
  // block (the same bits as finishReduction afterwards).
  const bool divides = op == ReduceOp::kAverage && divisor > 1;
  ringReduceScatter(transport, group, image, tag, divides ? static_cast<float>(divisor) : 1.0f);
  const BlockRange mine = blockRange(n, p, group.index);
  image.round(mine);  // this rank keeps exactly what the others receive
  std::vector<BlockRange> blocks(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) blocks[i] = image.byteRange(blockRange(n, p, i));
  ringAllgatherv(transport, group, image.bytes(), blocks, tag + 1);
  image.decode(image.all());
}

void allreduceRing(Transport& transport, std::span<float> data, ReduceOp op, WirePrecision wire,
                   Tag tag) {
  WireImage image(transport, wire, data);
  ringAllreduce(transport, Group::world(transport), image, op, transport.size(), tag);
}

}  // namespace tetrad::detail
