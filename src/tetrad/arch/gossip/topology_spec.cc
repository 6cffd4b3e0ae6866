#include "tetrad/arch/gossip/topology_spec.h"

#include <charconv>
#include <fstream>
#include <utility>
#include <vector>

#include "tetrad/arch/gossip/random_regular.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using Edges = std::vector<std::pair<int, int>>;

[[noreturn]] void failSpec(const std::string& spec, const std::string& problem) {
  TETRAD_FAIL(InvalidArgument, "invalid topology '{}': {}", spec, problem);
}

// A non-negative decimal integer that is the whole of `text`; -1 otherwise.
int64_t parseCount(std::string_view text) {
  int64_t value = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return -1;
  return value;
}

Edges ringEdges(int n) {
  Edges edges;
  for (int i = 0; i < n && n > 1; ++i) edges.emplace_back(i, (i + 1) % n);
  return edges;
}

Edges torusEdges(int rows, int cols) {
  Edges edges;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int me = r * cols + c;
      if (cols > 1) edges.emplace_back(me, r * cols + (c + 1) % cols);
      if (rows > 1) edges.emplace_back(me, ((r + 1) % rows) * cols + c);
    }
  }
  return edges;
}

Edges expEdges(int n) {
  Edges edges;
  for (int i = 0; i < n; ++i) {
    for (int64_t hop = 1; hop < n; hop *= 2) edges.emplace_back(i, static_cast<int>((i + hop) % n));
  }
  return edges;
}

Edges completeEdges(int n) {
  Edges edges;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) edges.emplace_back(i, j);
  }
  return edges;
}

std::vector<Graph> onePeerGraphs(int n) {
  std::vector<Graph> graphs;
  for (int hop = 1; hop < n; hop *= 2) {
    Edges edges;
    for (int i = 0; i < n; ++i) {
      if (i < (i ^ hop)) edges.emplace_back(i, i ^ hop);
    }
    graphs.push_back(Graph::fromEdges(n, edges));
  }
  if (graphs.empty()) graphs.push_back(Graph::fromEdges(n, {}));
  return graphs;
}

// The edge list of file:PATH (`spec` names it in errors).
Graph readEdgeList(const std::string& spec, const std::string& path, int n) {
  auto fail = [&](const std::string& problem) { failSpec(spec, problem); };
  std::ifstream in(path);
  if (!in) fail(fmt::format("cannot open edge list '{}'", path));
  Edges edges;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string_view text(line);
    if (size_t hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
    std::vector<std::string_view> fields;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = text.find_first_not_of(" \t\r", pos);
      if (start == std::string_view::npos) break;
      size_t end = text.find_first_of(" \t\r", start);
      if (end == std::string_view::npos) end = text.size();
      fields.push_back(text.substr(start, end - start));
      pos = end;
    }
    if (fields.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    if (fields.size() != 2) {
      fail(fmt::format("{}: expected \"i j\", got '{}'", where, line));
    }
    const int64_t a = parseCount(fields[0]);
    const int64_t b = parseCount(fields[1]);
    if (a < 0 || b < 0) fail(fmt::format("{}: expected two ranks, got '{}'", where, line));
    if (a >= n || b >= n) {
      fail(fmt::format("{}: rank {} out of range [0, {})", where, a >= n ? a : b, n));
    }
    if (a == b) fail(fmt::format("{}: self loop {} {}", where, a, b));
    edges.emplace_back(static_cast<int>(a), static_cast<int>(b));
  }
  Graph graph = Graph::fromEdges(n, edges);
  // Name the first rank that rank 0 cannot reach.
  std::vector<char> seen(static_cast<size_t>(n), 0);
  std::vector<int> stack{0};
  seen[0] = 1;
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (int next : graph.adjacency[node]) {
      if (!seen[next]) seen[next] = 1, stack.push_back(next);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!seen[i]) {
      fail(
          fmt::format("edge list '{}' on {} workers is not connected: rank {} is unreachable "
                      "from rank 0",
                      path, n, i));
    }
  }
  return graph;
}

}  // namespace

std::string knownTopologies() {
  return "ring, torus:RxC, exp, exp:one-peer, complete, random:D[:SEED], file:PATH";
}

Topology parseTopology(std::string_view spec, int workers, uint64_t seed) {
  const std::string text(spec);
  auto fail = [&](const std::string& problem) { failSpec(text, problem); };
  if (workers < 1) fail(fmt::format("needs at least one worker, got {}", workers));
  const int n = workers;
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const std::string_view arg =
      colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
  const bool hasArg = colon != std::string_view::npos;
  auto noArgument = [&] {
    if (hasArg) fail(fmt::format("'{}' takes no parameter", name));
  };
  try {
    if (name == "ring") {
      noArgument();
      return Topology(text, {Graph::fromEdges(n, ringEdges(n))});
    }
    if (name == "complete") {
      noArgument();
      if (n > kMaxCompleteSize) {
        fail(
            fmt::format("a complete graph on {} workers is too large (at most {}: the "
                        "adjacency holds n(n-1) ranks)",
                        n, kMaxCompleteSize));
      }
      return Topology(text, {Graph::fromEdges(n, completeEdges(n))});
    }
    if (name == "exp" && !hasArg) return Topology(text, {Graph::fromEdges(n, expEdges(n))});
    if (name == "exp") {
      if (arg != "one-peer") fail(fmt::format("unknown exp variant '{}' (known: one-peer)", arg));
      if ((n & (n - 1)) != 0) {
        fail(fmt::format("exp:one-peer needs a power-of-two number of workers, got {}", n));
      }
      return Topology(text, onePeerGraphs(n));
    }
    if (name == "torus") {
      const size_t x = arg.find('x');
      const int64_t rows = x == std::string_view::npos ? -1 : parseCount(arg.substr(0, x));
      const int64_t cols = x == std::string_view::npos ? -1 : parseCount(arg.substr(x + 1));
      if (rows < 1 || cols < 1) fail("expected torus:RxC with R, C >= 1 (e.g. torus:4x4)");
      if (rows > n || cols > n || rows * cols != n) {
        fail(fmt::format("{}x{} = {} ranks, but the world has {} workers", rows, cols,
                         rows > n || cols > n ? std::string("more") : std::to_string(rows * cols),
                         n));
      }
      return Topology(
          text, {Graph::fromEdges(n, torusEdges(static_cast<int>(rows), static_cast<int>(cols)))});
    }
    if (name == "random") {
      const size_t second = arg.find(':');
      const int64_t degree = parseCount(arg.substr(0, second));
      uint64_t graphSeed = seed;
      if (second != std::string_view::npos) {
        const int64_t given = parseCount(arg.substr(second + 1));
        if (given < 0) fail("expected random:D[:SEED] with an integer SEED >= 0");
        graphSeed = static_cast<uint64_t>(given);
      }
      if (degree < 0) fail("expected random:D[:SEED] with an integer degree D (e.g. random:4)");
      if (degree >= n) fail(fmt::format("degree {} must be below the {} workers", degree, n));
      return Topology(text, {randomRegularGraph(n, static_cast<int>(degree), graphSeed)});
    }
    if (name == "file") {
      if (arg.empty()) fail("expected file:PATH");
      return Topology(text, {readEdgeList(text, std::string(arg), n)});
    }
  } catch (const InvalidArgument&) {
    rethrowWithPrefix(fmt::format("invalid topology '{}': ", text));
  }
  failSpec(text, fmt::format("unknown topology '{}' (known: {})", name, knownTopologies()));
}

}  // namespace tetrad
