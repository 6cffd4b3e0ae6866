#include "tetrad/transport/mpi/node_layout.h"

#include <set>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad::mpi {

int ranksPerNodeFromHosts(const std::vector<std::string>& hosts) {
  const int size = static_cast<int>(hosts.size());
  if (size == 0) return 1;
  int perNode = 0;
  while (perNode < size && hosts[perNode] == hosts[0]) ++perNode;
  if (size % perNode != 0) return 1;
  std::set<std::string> seen;
  for (int leader = 0; leader < size; leader += perNode) {
    if (!seen.insert(hosts[leader]).second) return 1;  // a host holds two blocks
    for (int r = leader; r < leader + perNode; ++r) {
      if (hosts[r] != hosts[leader]) return 1;
    }
  }
  return perNode;
}

int parseRanksPerNode(const std::string& text, int worldSize) {
  int64_t value = 0;
  try {
    value = parseInteger(text, "TETRAD_MPI_RANKS_PER_NODE");
  } catch (const InvalidArgument&) {
    value = 0;
  }
  TETRAD_CHECK(value >= 1 && value <= worldSize && worldSize % value == 0, InvalidArgument,
               "TETRAD_MPI_RANKS_PER_NODE='{}' must be a positive divisor of the world size {}",
               text, worldSize);
  return static_cast<int>(value);
}

}  // namespace tetrad::mpi
