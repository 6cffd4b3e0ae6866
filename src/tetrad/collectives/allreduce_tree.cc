// Binomial-tree all-reduce: binomial reduce to rank 0, then binomial
// broadcast from rank 0.
//
// Cost for p ranks and n bytes:
//   T = 2⌈log2 p⌉·α + 2⌈log2 p⌉·nβ + ⌈log2 p⌉·nγ
// Latency term logarithmic but every round carries the whole vector: good
// for small messages only. Any p (the binomial tree simply has missing
// leaves). n counts wire bytes (2·count with a 16-bit WirePrecision).
// Sum order at rank 0: x[0] + S(1) + S(2) + S(4) + ..., where S(v) is the
// sum of v's subtree formed the same way (e.g. p = 4: (x0 + x1) + (x2 + x3)).
// The result is bit-identical on every rank. 16-bit wire: every S(v) is
// rounded as it is sent; rank 0 rounds the result before broadcasting it.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad::detail {

void allreduceTree(Transport& transport, std::span<float> data, ReduceOp op, WirePrecision wire,
                   Tag tag) {
  const Group world = Group::world(transport);
  WireImage image(transport, wire, data);
  binomialReduce(transport, world, image, 0, tag);
  if (transport.rank() == 0) {
    if (image.compute()) finishReduction(data, op, transport.size());
    image.round(image.all());
  }
  binomialBroadcast(transport, world, image.bytes(), 0, tag + 1);
  if (transport.rank() != 0) image.decode(image.all());
}

}  // namespace tetrad::detail
