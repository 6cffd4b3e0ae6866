// Hierarchical (two-level) all-reduce: binomial reduce inside each node to
// its leader (the node's first rank), ring all-reduce among the leaders,
// binomial broadcast inside each node.
//
// Cost for p ranks on m = ⌈p/g⌉ nodes of g = ranksPerNode() ranks, n bytes,
// intra-node (α_l, β_l) and inter-node (α, β) links:
//   T = 2⌈log2 g⌉·(α_l + nβ_l) + ⌈log2 g⌉·nγ                (inside nodes)
//     + 2(m-1)·α + 2(m-1)·⌈n/m⌉·β + (m-1)·⌈n/m⌉·γ            (leader ring)
// Only one rank per node uses the slow network, and the ring has m instead
// of p members: wins when links inside a node are much faster than between
// nodes (GPUs on NVLink, nodes on Ethernet). A last node with fewer than g
// ranks is handled as is; g = 1 degenerates to the ring, g >= p to the tree.
// n counts wire bytes (2·count with a 16-bit WirePrecision: β terms halved).
// Sum order: binomial tree inside each node (see allreduce_tree.cc), then
// the ring order over leaders (allreduce_ring.cc); with a 16-bit wire the
// rounding of both. The leaders' result is rounded to the wire and
// broadcast as is, so every rank holds the same values.
#include <algorithm>

#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void allreduceHierarchical(Transport& transport, std::span<float> data, ReduceOp op,
                           WirePrecision wire, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  const int perNode = std::clamp(transport.ranksPerNode(), 1, p);
  const int nodes = (p + perNode - 1) / perNode;
  const int nodeFirst = rank / perNode * perNode;
  const Group node = Group::of(rank, nodeFirst, 1, std::min(perNode, p - nodeFirst));
  const Group leaders = Group::of(rank, 0, perNode, nodes);

  WireImage image(transport, wire, data);
  binomialReduce(transport, node, image, 0, tag);
  // The leaders' image then encodes their whole result.
  if (leaders.contains()) ringAllreduce(transport, leaders, image, op, p, tag + 1);  // tag+1, +2
  binomialBroadcast(transport, node, image.bytes(), 0, tag + 3);
  if (!leaders.contains()) image.decode(image.all());
}

}  // namespace tetrad::detail
