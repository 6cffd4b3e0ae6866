#include "tetrad/launch/launcher.h"

#include <cstdlib>
#include <string_view>

#include "tetrad/core/error.h"
#include "tetrad/transport/engines.h"

namespace tetrad {

bool isMpiCluster(const std::string& cluster) {
  if (cluster == "mpi") return true;
  if (std::string_view(cluster).starts_with("sim:")) return false;
  TETRAD_FAIL(InvalidArgument,
              "invalid cluster '{}': expected 'mpi' or 'sim:SPEC' (e.g. sim:8x10Gbps,25us)",
              cluster);
}

void launch(const LaunchOptions& options, const WorkerFn& worker) {
  TETRAD_CHECK(options.timeoutSeconds > 0, InvalidArgument, "timeout must be positive, got {}",
               options.timeoutSeconds);
  TETRAD_CHECK(options.workers >= 0, InvalidArgument, "invalid number of workers {}",
               options.workers);
  if (isMpiCluster(options.cluster)) {
    TETRAD_CHECK(!options.payloadFree, InvalidArgument,
                 "payload-free mode exists only on a simulated cluster (--cluster sim:...)");
    runMpiWorld(options, worker);
  } else {
    runSimulation(options, worker);
  }
}

int fixedHostCount(const std::string& cluster) {
  return isMpiCluster(cluster) ? 0 : simFixedHostCount(cluster);
}

void abortAllRanks(int code) {
  abortMpiWorld(code);
}

bool isOutputProcess() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  return rank == nullptr || std::string_view(rank) == "0";
}

}  // namespace tetrad
