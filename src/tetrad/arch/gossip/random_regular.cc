#include "tetrad/arch/gossip/random_regular.h"

#include <algorithm>
#include <random>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tetrad/core/error.h"

namespace tetrad {
namespace {

constexpr int kMaxSwapRounds = 200;

uint64_t edgeKey(int a, int b) {
  if (a > b) std::swap(a, b);
  return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
}

// Uniform-enough index in [0, bound) from the 64-bit generator (bias below
// 2^-40 for the sizes used here; no std:: distribution, so the graph is the
// same on every standard library).
size_t below(std::mt19937_64& rng, size_t bound) {
  return static_cast<size_t>(rng() % bound);
}

std::vector<std::pair<int, int>> circulant(int n, int d) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i) {
    for (int k = 1; k <= d / 2; ++k) edges.emplace_back(i, (i + k) % n);
    if (d % 2 == 1 && i < n / 2) edges.emplace_back(i, i + n / 2);
  }
  return edges;
}

std::vector<std::pair<int, int>> randomCycle(int n, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[i] = i;
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[below(rng, i + 1)]);
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i) edges.emplace_back(order[i], order[(i + 1) % n]);
  return edges;
}

// One round of swap attempts on `edges`, keeping `present` in step.
void swapRound(std::vector<std::pair<int, int>>& edges, std::unordered_set<uint64_t>& present,
               std::mt19937_64& rng) {
  const size_t attempts = 20 * edges.size();
  for (size_t t = 0; t < attempts; ++t) {
    const size_t e1 = below(rng, edges.size());
    const size_t e2 = below(rng, edges.size());
    if (e1 == e2) continue;
    auto [a, b] = edges[e1];
    auto [c, d] = edges[e2];
    if (rng() & 1) std::swap(c, d);
    // (a,b),(c,d) -> (a,d),(c,b)
    if (a == d || c == b || a == c || b == d) continue;
    if (present.count(edgeKey(a, d)) || present.count(edgeKey(c, b))) continue;
    present.erase(edgeKey(a, b));
    present.erase(edgeKey(c, d));
    present.insert(edgeKey(a, d));
    present.insert(edgeKey(c, b));
    edges[e1] = {a, d};
    edges[e2] = {c, b};
  }
}

}  // namespace

Graph randomRegularGraph(int n, int d, uint64_t seed) {
  TETRAD_CHECK(d >= 1, InvalidArgument, "random:{}: the degree must be at least 1", d);
  TETRAD_CHECK(d < n, InvalidArgument, "random:{}: the degree must be below the {} workers", d, n);
  TETRAD_CHECK((static_cast<int64_t>(n) * d) % 2 == 0, InvalidArgument,
               "random:{}: n·D must be even, got {}·{}", d, n, d);
  TETRAD_CHECK(d >= 2 || n == 2, InvalidArgument,
               "random:1 on {} workers is a perfect matching, which is disconnected", n);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  if (d == 2) {
    std::vector<std::pair<int, int>> edges = randomCycle(n, rng);
    return Graph::fromEdges(n, edges);
  }
  std::vector<std::pair<int, int>> edges = circulant(n, d);
  std::unordered_set<uint64_t> present;
  for (const auto& [a, b] : edges) present.insert(edgeKey(a, b));
  for (int round = 0; round < kMaxSwapRounds; ++round) {
    swapRound(edges, present, rng);
    Graph graph = Graph::fromEdges(n, edges);
    const Graph* one = &graph;
    if (connectedUnion(std::span<const Graph>(one, 1))) return graph;
  }
  TETRAD_FAIL(InvalidArgument,
              "random:{}: no connected {}-regular graph on {} workers after {} rounds of edge "
              "swaps (seed {})",
              d, d, n, kMaxSwapRounds, seed);
}

}  // namespace tetrad
