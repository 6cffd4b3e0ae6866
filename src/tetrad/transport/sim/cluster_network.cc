// simClusterNetwork() (engines.h): a ClusterSpec as the engine-neutral
// ClusterNetwork of transport/cluster_network.h.
#include "tetrad/transport/cluster_network.h"

#include "tetrad/transport/engines.h"
#include "tetrad/transport/sim/cluster_spec.h"

namespace tetrad {

ClusterNetwork simClusterNetwork(const std::string& cluster) {
  const sim::ClusterSpec spec = sim::parseClusterSpec(cluster);
  ClusterNetwork network;
  network.hosts = spec.hosts;
  network.bandwidth = spec.link.bandwidth;
  network.latency = spec.link.latency;
  switch (spec.topology) {
    case sim::Topology::kStar:
      network.shape = ClusterShape::kStar;
      break;
    case sim::Topology::kTwoLevel:
      network.shape = ClusterShape::kTwoLevel;
      network.intraBandwidth = spec.intraLink.bandwidth;
      network.intraLatency = spec.intraLink.latency;
      network.ranksPerNode = spec.ranksPerNode;
      break;
    default:
      network.shape = ClusterShape::kOther;
      break;
  }
  return network;
}

}  // namespace tetrad
