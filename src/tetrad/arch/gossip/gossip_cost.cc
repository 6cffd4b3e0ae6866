#include "tetrad/arch/gossip/gossip_cost.h"

namespace tetrad {

GossipCost gossipStepCost(int maxDegree, double packetBytes, double alpha, double beta) {
  GossipCost cost;
  cost.packetBytes = packetBytes;
  cost.bytesPerWorker = maxDegree * packetBytes;
  cost.seconds = maxDegree == 0 ? 0.0 : alpha + maxDegree * packetBytes * beta;
  cost.serialSeconds = maxDegree * (alpha + packetBytes * beta);
  return cost;
}

GossipCost gossipStepCost(const Topology& topology, double packetBytes, double alpha, double beta) {
  return gossipStepCost(topology.maxDegree(), packetBytes, alpha, beta);
}

}  // namespace tetrad
