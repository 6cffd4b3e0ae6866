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
// Sum order: binomial tree inside each node (see allreduce_tree.cc), then
// the ring order over leaders (allreduce_ring.cc).
#include <algorithm>

#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad::detail {

void allreduceHierarchical(Transport& transport, std::span<float> data, ReduceOp op, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  const int perNode = std::clamp(transport.ranksPerNode(), 1, p);
  const int nodes = (p + perNode - 1) / perNode;
  const int nodeFirst = rank / perNode * perNode;
  const Group node = Group::of(rank, nodeFirst, 1, std::min(perNode, p - nodeFirst));
  const Group leaders = Group::of(rank, 0, perNode, nodes);

  binomialReduce(transport, node, data, 0, tag);
  if (leaders.contains()) ringAllreduce(transport, leaders, data, op, p, tag + 1);  // tag+1, +2
  binomialBroadcast(transport, node, asWritableBytes(data), 0, tag + 3);
}

}  // namespace tetrad::detail
