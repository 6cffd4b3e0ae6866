// α–β cost of one gossip step on a star network (each rank one full-duplex
// link of bandwidth 1/β to a non-blocking switch, latency α per message),
// for `tetrad topo` and the tests.
//
// A rank of degree d sends its packet of P bytes to its d neighbours and
// receives theirs, all posted at once (neighbour_mixer.h, choco_gossip.h).
// The d outgoing messages share the rank's uplink and the d incoming ones
// its downlink, and their latencies overlap, so the step ends after
//   T = α + d_max·P·β
// (d_max, the largest degree: a rank waits for its slowest neighbour's
// messages, and each neighbour's uplink is shared among its own d_j sends).
// If a transport serialised the sends instead (one message after the other,
// each paying its latency), the step would take the upper bound
//   T_serial = d_max·(α + P·β).
// docs/gossip.md derives both and compares them with SimGrid.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>

#include "tetrad/arch/gossip/topology.h"

namespace tetrad {

struct GossipCost {
  double packetBytes = 0;     // P
  double bytesPerWorker = 0;  // d_max·P, sent by the busiest rank per step
  double seconds = 0;         // α + d_max·P·β
  double serialSeconds = 0;   // d_max·(α + P·β)
};

// Cost of one step of `topology` (its largest degree over the period) with
// packets of `packetBytes` (D-PSGD: 4 bytes per float32 parameter).
GossipCost gossipStepCost(const Topology& topology, double packetBytes, double alpha, double beta);
// The same from a degree alone.
GossipCost gossipStepCost(int maxDegree, double packetBytes, double alpha, double beta);

}  // namespace tetrad
