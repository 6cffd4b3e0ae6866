// Gossip topology specs: the argument of `tetrad topo` (and of a gossip
// architecture spec such as gossip:TOPO once the trainer offers one), parsed
// in one place into a Topology for a world of `workers` ranks.
//
//   ring           i ~ i±1 (mod n); n = 2 is one edge, n = 1 no edge.
//   torus:RxC      R·C = n ranks on an R×C grid with wrap-around, rank
//                  r·C + c ~ its four grid neighbours (fewer when R or C <= 2).
//   exp            exponential graph: i ~ i ± 2^k (mod n) for every k with
//                  2^k < n (the directed graph of SGP/"exponential" gossip,
//                  symmetrised); degree 2·⌈log2 n⌉ - 1 when n is a power of
//                  two.
//   exp:one-peer   time-varying, n a power of two: at step t, with
//                  k = t mod log2(n), rank i talks to the single peer
//                  i XOR 2^k (hypercube pairing: distance 2^k, and the
//                  pairing is symmetric, so W_t = (I + P_t)/2 is symmetric
//                  and doubly stochastic). After any log2(n) consecutive
//                  steps every rank holds the exact average. Other n:
//                  InvalidArgument (a one-peer schedule at distance 2^k is a
//                  perfect matching only for powers of two).
//   complete       every pair (at most kMaxCompleteSize workers).
//   random:D[:SEED] connected random D-regular graph (random_regular.h),
//                  seeded by SEED or else by `seed`; needs 2 <= D < n
//                  (D = 1 only for n = 2) and n·D even.
//   file:PATH      an edge list: one "i j" per line (0 <= i, j < n, i != j;
//                  duplicates and both directions allowed), '#' starts a
//                  comment, blank lines are ignored. The graph must be
//                  connected.
//
// Bad input throws InvalidArgument with one line that starts with
// "invalid topology 'SPEC'" and names the problem: "torus:3x3" on 8 workers,
// a malformed, out-of-range or self-loop line of an edge list (with
// PATH:LINE), a disconnected edge list (naming an unreachable rank), D >= n,
// an unknown name (listing the known ones).
//
// Thread-safety: pure functions (file: reads the file).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tetrad/arch/gossip/topology.h"

namespace tetrad {

// The largest world a `complete` topology is built for (n(n-1) ints).
constexpr int kMaxCompleteSize = 4096;

Topology parseTopology(std::string_view spec, int workers, uint64_t seed = 1);

// The known spec forms, for help texts: "ring, torus:RxC, exp, ...".
std::string knownTopologies();

}  // namespace tetrad
