#include "tetrad/arch/gossip/topology.h"

#include <algorithm>

#include "tetrad/core/error.h"

namespace tetrad {

Graph Graph::fromEdges(int n, std::span<const std::pair<int, int>> edges) {
  TETRAD_CHECK(n >= 1, InvalidArgument, "a graph needs at least one node, got {}", n);
  Graph graph;
  graph.adjacency.resize(static_cast<size_t>(n));
  for (const auto& [a, b] : edges) {
    TETRAD_CHECK(a >= 0 && a < n && b >= 0 && b < n, InvalidArgument,
                 "edge {} {}: node out of range [0, {})", a, b, n);
    TETRAD_CHECK(a != b, InvalidArgument, "edge {} {}: self loop", a, b);
    graph.adjacency[a].push_back(b);
    graph.adjacency[b].push_back(a);
  }
  for (std::vector<int>& list : graph.adjacency) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return graph;
}

bool connectedUnion(std::span<const Graph> graphs) {
  const int n = graphs.front().size();
  std::vector<char> seen(static_cast<size_t>(n), 0);
  std::vector<int> stack{0};
  seen[0] = 1;
  int reached = 1;
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (const Graph& graph : graphs) {
      for (int next : graph.adjacency[node]) {
        if (!seen[next]) {
          seen[next] = 1;
          ++reached;
          stack.push_back(next);
        }
      }
    }
  }
  return reached == n;
}

Topology::Topology(std::string spec, std::vector<Graph> graphs)
    : spec_(std::move(spec)), graphs_(std::move(graphs)) {
  TETRAD_CHECK(!graphs_.empty(), InvalidArgument, "invalid topology '{}': no graph", spec_);
  const int n = graphs_.front().size();
  TETRAD_CHECK(n >= 1, InvalidArgument, "invalid topology '{}': no nodes", spec_);
  minDegree_ = n;
  maxDegree_ = 0;
  for (size_t g = 0; g < graphs_.size(); ++g) {
    const Graph& graph = graphs_[g];
    TETRAD_CHECK(graph.size() == n, InvalidArgument,
                 "invalid topology '{}': graph {} of the period has {} nodes, graph 0 has {}",
                 spec_, g, graph.size(), n);
    int lo = n, hi = 0;
    for (int i = 0; i < n; ++i) {
      const std::vector<int>& list = graph.adjacency[i];
      for (size_t k = 0; k < list.size(); ++k) {
        const int j = list[k];
        TETRAD_CHECK(j >= 0 && j < n && j != i && (k == 0 || list[k - 1] < j), InvalidArgument,
                     "invalid topology '{}': node {} has a bad neighbour list (neighbour {} of "
                     "{} nodes)",
                     spec_, i, j, n);
        TETRAD_CHECK(std::binary_search(graph.adjacency[j].begin(), graph.adjacency[j].end(), i),
                     InvalidArgument, "invalid topology '{}': edge {} -> {} is not symmetric",
                     spec_, i, j);
      }
      lo = std::min(lo, graph.degree(i));
      hi = std::max(hi, graph.degree(i));
    }
    regular_.push_back(lo == hi);
    minDegree_ = std::min(minDegree_, lo);
    maxDegree_ = std::max(maxDegree_, hi);
  }
  TETRAD_CHECK(connectedUnion(graphs_), InvalidArgument,
               "invalid topology '{}': the graph on {} nodes is not connected", spec_, n);
}

const Graph& Topology::graphAt(int64_t step) const {
  TETRAD_CHECK(step >= 0, InvalidArgument, "topology '{}': negative step {}", spec_, step);
  return graphs_[static_cast<size_t>(step % period())];
}

void Topology::checkRank(int rank, const char* what) const {
  TETRAD_CHECK(rank >= 0 && rank < size(), InvalidArgument,
               "topology '{}': {} of rank {} outside [0, {})", spec_, what, rank, size());
}

std::span<const int> Topology::neighbours(int rank, int64_t step) const {
  checkRank(rank, "neighbours");
  return graphAt(step).adjacency[rank];
}

bool Topology::regular() const {
  return std::all_of(regular_.begin(), regular_.end(), [](bool r) { return r; });
}

bool Topology::regularAt(int64_t step) const {
  graphAt(step);  // checks the step
  return regular_[static_cast<size_t>(step % period())];
}

double Topology::metropolisWeight(int di, int dj) {
  return 1.0 / (1 + std::max(di, dj));
}

std::vector<MixingWeight> Topology::mixingRow(int rank, int64_t step) const {
  checkRank(rank, "mixing row");
  const Graph& graph = graphAt(step);
  const bool uniform = regularAt(step);
  const std::vector<int>& list = graph.adjacency[rank];
  const int di = graph.degree(rank);
  std::vector<MixingWeight> row;
  row.reserve(list.size() + 1);
  double sum = 0;
  for (int j : list) {
    const double w = uniform ? 1.0 / (di + 1) : metropolisWeight(di, graph.degree(j));
    row.push_back({j, w});
    sum += w;
  }
  const double self = uniform ? 1.0 / (di + 1) : 1.0 - sum;
  auto at = std::lower_bound(row.begin(), row.end(), rank,
                             [](const MixingWeight& m, int r) { return m.rank < r; });
  row.insert(at, MixingWeight{rank, self});
  return row;
}

double Topology::weight(int i, int j, int64_t step) const {
  checkRank(j, "weight");
  for (const MixingWeight& m : mixingRow(i, step)) {
    if (m.rank == j) return m.weight;
  }
  return 0.0;
}

}  // namespace tetrad
