// Random D-regular graphs for the `random:D` gossip topology.
//
// randomRegularGraph(n, d, seed) returns a connected simple graph on n nodes
// in which every node has exactly d neighbours, the same for the same
// (n, d, seed) on every platform (its own 64-bit generator, no std::
// distributions). Method: start from the circulant d-regular graph (node i
// linked to i±1, ..., i±d/2, and to i + n/2 when d is odd), then apply
// 20·|E| random degree-preserving double-edge swaps ((a,b),(c,d) ->
// (a,d),(c,b) when that creates no loop or duplicate edge), repeating rounds
// of swaps until the graph is connected (connected with high probability
// for d >= 3). d = 2 is a random Hamiltonian cycle (a random permutation
// closed into a ring), the only connected 2-regular graphs. The result is
// close to, not exactly, uniform over d-regular graphs.
//
// Requirements (InvalidArgument otherwise): 1 <= d < n, n·d even, and d >= 2
// unless n = 2 (a perfect matching on more than two nodes is disconnected).
//
// Thread-safety: a pure function.
#pragma once

#include <cstdint>

#include "tetrad/arch/gossip/topology.h"

namespace tetrad {

Graph randomRegularGraph(int n, int d, uint64_t seed);

}  // namespace tetrad
