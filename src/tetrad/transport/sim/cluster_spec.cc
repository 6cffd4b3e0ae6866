#include "tetrad/transport/sim/cluster_spec.h"

#include <cstdint>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/transport/engines.h"

namespace tetrad::sim {
namespace {

// Largest platform we agree to build (hosts).
constexpr int64_t kMaxHosts = 1 << 20;

constexpr const char* kForms =
    "expected sim:[N x]BW,LAT | sim:NxG:BW,LAT:BW,LAT | sim:fattree:L;D..;U..;C..:BW,LAT | "
    "sim:torus:XxYxZ:BW,LAT | sim:FILE.xml";

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// Parses one count in [1, kMaxHosts].
int64_t parseCount(std::string_view text, std::string_view what) {
  int64_t value = parseInteger(text, what);
  TETRAD_CHECK(value >= 1 && value <= kMaxHosts, InvalidArgument,
               "invalid {} '{}': must be between 1 and {}", what, text, kMaxHosts);
  return value;
}

LinkSpec parseLink(std::string_view text) {
  std::vector<std::string_view> parts = split(text, ',');
  TETRAD_CHECK(parts.size() == 2, InvalidArgument,
               "invalid link '{}': expected BANDWIDTH,LATENCY (e.g. 10Gbps,25us)", text);
  return LinkSpec{parseBandwidth(parts[0]), parseDuration(parts[1])};
}

std::vector<unsigned> parseList(std::string_view text, char separator, std::string_view what) {
  std::vector<unsigned> values;
  for (std::string_view part : split(text, separator)) {
    values.push_back(static_cast<unsigned>(parseCount(part, what)));
  }
  return values;
}

int64_t product(const std::vector<unsigned>& values) {
  int64_t total = 1;
  for (unsigned v : values) {
    total *= v;
    TETRAD_CHECK(total <= kMaxHosts, InvalidArgument, "too many hosts (more than {})", kMaxHosts);
  }
  return total;
}

void parseStar(std::string_view body, ClusterSpec& spec) {
  spec.topology = Topology::kStar;
  size_t x = body.find('x');
  if (x != std::string_view::npos && body.substr(0, x).find(',') == std::string_view::npos) {
    spec.hosts = static_cast<int>(parseCount(body.substr(0, x), "host count"));
    body = body.substr(x + 1);
  }
  spec.link = parseLink(body);
}

void parseTwoLevel(const std::vector<std::string_view>& parts, ClusterSpec& spec) {
  spec.topology = Topology::kTwoLevel;
  size_t x = parts[0].find('x');
  TETRAD_CHECK(x != std::string_view::npos, InvalidArgument,
               "invalid shape '{}': expected NODESxRANKS_PER_NODE (e.g. 4x8)", parts[0]);
  spec.nodes = static_cast<int>(parseCount(parts[0].substr(0, x), "node count"));
  spec.ranksPerNode = static_cast<int>(parseCount(parts[0].substr(x + 1), "ranks per node"));
  spec.hosts = static_cast<int>(
      product({static_cast<unsigned>(spec.nodes), static_cast<unsigned>(spec.ranksPerNode)}));
  spec.intraLink = parseLink(parts[1]);
  spec.link = parseLink(parts[2]);
}

void parseFatTree(std::string_view shape, ClusterSpec& spec) {
  spec.topology = Topology::kFatTree;
  std::vector<std::string_view> fields = split(shape, ';');
  TETRAD_CHECK(fields.size() == 4, InvalidArgument,
               "invalid fat-tree '{}': expected LEVELS;DOWN..;UP..;COUNT.. (e.g. 2;4,4;1,2;1,2)",
               shape);
  FatTreeShape& tree = spec.fatTree;
  tree.levels = static_cast<unsigned>(parseCount(fields[0], "fat-tree levels"));
  tree.down = parseList(fields[1], ',', "fat-tree down-link count");
  tree.up = parseList(fields[2], ',', "fat-tree up-link count");
  tree.count = parseList(fields[3], ',', "fat-tree link count");
  for (const auto* list : {&tree.down, &tree.up, &tree.count}) {
    TETRAD_CHECK(list->size() == tree.levels, InvalidArgument,
                 "invalid fat-tree '{}': each list needs {} entries (one per level)", shape,
                 tree.levels);
  }
  spec.hosts = static_cast<int>(product(tree.down));
}

void parseTorus(std::string_view dims, ClusterSpec& spec) {
  spec.topology = Topology::kTorus;
  spec.torusDims = parseList(dims, 'x', "torus dimension");
  spec.hosts = static_cast<int>(product(spec.torusDims));
}

ClusterSpec parseBody(std::string_view body, ClusterSpec spec) {
  if (body.ends_with(".xml")) {
    spec.topology = Topology::kFile;
    spec.file = std::string(body);
    return spec;
  }
  std::vector<std::string_view> parts = split(body, ':');
  if (parts[0] == "fattree" || parts[0] == "torus") {
    TETRAD_CHECK(parts.size() == 3, InvalidArgument, "expected {}:SHAPE:BW,LAT", parts[0]);
    if (parts[0] == "fattree") {
      parseFatTree(parts[1], spec);
    } else {
      parseTorus(parts[1], spec);
    }
    spec.link = parseLink(parts[2]);
  } else if (parts.size() == 1) {
    parseStar(parts[0], spec);
  } else if (parts.size() == 3) {
    parseTwoLevel(parts, spec);
  } else {
    TETRAD_FAIL(InvalidArgument, "{}", kForms);
  }
  return spec;
}

}  // namespace

ClusterSpec parseClusterSpec(std::string_view cluster) {
  TETRAD_CHECK(cluster.starts_with("sim:"), InvalidArgument,
               "invalid cluster spec '{}': a simulated cluster starts with 'sim:'", cluster);
  ClusterSpec spec;
  spec.text = std::string(cluster);
  std::string_view body = cluster.substr(4);
  try {
    TETRAD_CHECK(!body.empty(), InvalidArgument, "{}", kForms);
    return parseBody(body, std::move(spec));
  } catch (const InvalidArgument& e) {
    TETRAD_FAIL(InvalidArgument, "invalid cluster spec '{}': {}", cluster, e.what());
  }
}

int resolveRankCount(const ClusterSpec& spec, int workers, int platformHosts) {
  TETRAD_CHECK(workers >= 0, InvalidArgument, "invalid number of workers {}", workers);
  if (workers == 0) {
    TETRAD_CHECK(platformHosts > 0, InvalidArgument,
                 "cluster spec '{}' does not fix the number of hosts: give the number of "
                 "workers (e.g. --workers 8) or write sim:8x...",
                 spec.text);
    return platformHosts;
  }
  TETRAD_CHECK(platformHosts == 0 || workers <= platformHosts, InvalidArgument,
               "cluster spec '{}' has {} hosts, fewer than the {} workers requested", spec.text,
               platformHosts, workers);
  return workers;
}

}  // namespace tetrad::sim

namespace tetrad {

int simFixedHostCount(const std::string& cluster) {
  const sim::ClusterSpec spec = sim::parseClusterSpec(cluster);
  return spec.topology == sim::Topology::kFile ? kHostsOfPlatformFile : spec.hosts;
}

}  // namespace tetrad
