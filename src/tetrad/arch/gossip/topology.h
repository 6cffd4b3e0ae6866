// Topology: who gossips with whom, and with which mixing weights, at each
// step of decentralized training (D-PSGD, CHOCO-SGD).
//
// A Topology is an undirected simple graph on the `size()` ranks of a world
// (no self loops; i ~ j iff j ~ i), or, for time-varying topologies
// (exp:one-peer), a cycle of `period()` such graphs: step t uses graph
// t mod period(). parseTopology() (topology_spec.h) builds one from a spec
// string; every topology it returns is connected (its union over one period
// is, for time-varying ones).
//
// Mixing weights (the matrix W of gossip averaging x_i <- Σ_j w_ij x_j) are
// Metropolis–Hastings weights of the step's graph:
//   w_ij = 1 / (1 + max(d_i, d_j))  for each neighbour j of i,
//   w_ii = 1 - Σ_{j~i} w_ij,         0 for non-neighbours.
// On a regular graph (every degree d) this is the uniform weight 1/(d+1) over
// the closed neighbourhood, and the code returns exactly 1.0/(d+1) there (no
// rounding from 1 - Σ). W is symmetric and doubly stochastic.
//
// Memory: adjacency lists, Σ_i d_i ints per graph (a complete graph on n
// ranks holds n(n-1) ints: 64 MB at n = 4096).
//
// Ownership and threads: a Topology is an immutable value after
// construction; any thread (any rank's actor) may read it concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tetrad {

// An undirected simple graph on `adjacency.size()` nodes: adjacency[i] holds
// i's neighbours in ascending order, without i itself.
struct Graph {
  std::vector<std::vector<int>> adjacency;

  int size() const { return static_cast<int>(adjacency.size()); }
  int degree(int node) const { return static_cast<int>(adjacency[node].size()); }
  // Builds the graph of `n` nodes from undirected edges (duplicates and both
  // directions allowed). Throws InvalidArgument on a self loop or a node
  // outside [0, n).
  static Graph fromEdges(int n, std::span<const std::pair<int, int>> edges);
};

// True when every node of the union of `graphs` is reachable from node 0.
bool connectedUnion(std::span<const Graph> graphs);

// One entry of a rank's mixing row.
struct MixingWeight {
  int rank = 0;
  double weight = 0;
};

class Topology {
 public:
  // `graphs` (one per step of the period; all of the same size >= 1) must be
  // simple, symmetric and connected in union; throws InvalidArgument naming
  // `spec` otherwise. Normally built by parseTopology().
  Topology(std::string spec, std::vector<Graph> graphs);

  // The spec it was built from, e.g. "torus:4x4".
  const std::string& spec() const { return spec_; }
  int size() const { return graphs_.front().size(); }
  // Number of distinct per-step graphs: 1 for static topologies.
  int period() const { return static_cast<int>(graphs_.size()); }
  bool timeVarying() const { return period() > 1; }

  // The graph used at `step` (>= 0): graph(step mod period()).
  const Graph& graphAt(int64_t step) const;
  // Neighbours of `rank` at `step`, ascending, without `rank`.
  std::span<const int> neighbours(int rank, int64_t step) const;
  // Row `rank` of the mixing matrix at `step` restricted to its closed
  // neighbourhood: the neighbours and `rank` itself, ascending by rank id.
  // The weights sum to 1 (up to rounding).
  std::vector<MixingWeight> mixingRow(int rank, int64_t step) const;
  // w_ij at `step` (0 when i and j are not neighbours and i != j).
  double weight(int i, int j, int64_t step) const;

  // Smallest and largest degree over all ranks and steps of the period.
  int minDegree() const { return minDegree_; }
  int maxDegree() const { return maxDegree_; }
  // True when every graph of the period is regular.
  bool regular() const;
  // True when the graph used at `step` is regular (uniform weights).
  bool regularAt(int64_t step) const;

  // The weight of an edge between ranks of degrees di and dj in a graph
  // that is not regular (Metropolis–Hastings): 1 / (1 + max(di, dj)).
  static double metropolisWeight(int di, int dj);

 private:
  void checkRank(int rank, const char* what) const;

  std::string spec_;
  std::vector<Graph> graphs_;
  std::vector<bool> regular_;  // per graph
  int minDegree_ = 0;
  int maxDegree_ = 0;
};

}  // namespace tetrad
