#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/transport/engines.h"

namespace tetrad {

ClusterNetwork clusterNetwork(const std::string& cluster) {
  TETRAD_CHECK(!isMpiCluster(cluster), InvalidArgument,
               "cluster '{}': a cost model needs a simulated cluster spec (sim:BW,LAT or "
               "sim:NxG:BW1,LAT1:BW2,LAT2) that names bandwidths and latencies",
               cluster);
  return simClusterNetwork(cluster);
}

}  // namespace tetrad
