// NetworkModel: the α–β parameters of a cluster for p workers, read from a
// "sim:..." spec through clusterNetwork() (launch/launcher.h).
//
//   star  sim:[N x]BW,LAT        α = LAT, β = 1/BW for every message
//   two-level sim:NxG:BW1,LAT1:BW2,LAT2
//         inside a node          α_l = LAT1, β_l = 1/BW1
//         across nodes           α = LAT1 + LAT2, β = 1/min(BW1, BW2)
//
// Flat algorithms (ring, tree, all-gather, parameter server, gossip) on a
// two-level cluster are charged the across-node α and β for every step: a
// step ends with its slowest message. Contention of several flows on one
// node uplink is not modelled (a ring crosses each uplink once per
// direction, so the ring is exact; trees and parameter servers may be
// optimistic there). Hierarchical all-reduce uses both levels.
//
// A named network model (netprofile/net_model_choice.h: lv08, cm02,
// profile:FILE) adds per-size factors to α and β (withNetModel): every
// all-reduce message of m bytes costs α·latencyFactor(m) + m·β/bandwidthFactor(m),
// as in the simulator on the same model, and every flow's rate is bounded by
// the TCP window, TCP-gamma / (2α) (collective_cost.h). Without one the model
// is plain α–β with no window bound.
//
// Every exchange's cost goes through latencyAt() and secondsPerByteAt(): the
// collectives (collective_cost.h), the all-gather and gTop-k protocols, the
// parameter server's pushes and pulls and gossip's neighbour exchanges.
//
// Pure functions; plain values; thread-safe.
#pragma once

#include <string>

#include "tetrad/collectives/collective_cost.h"
#include "tetrad/transport/piecewise_factor.h"

namespace tetrad::model {

struct NetworkModel {
  std::string cluster;  // the spec as given
  int workers = 0;      // p
  double alpha = 0;     // seconds per message (across nodes on two-level)
  double beta = 0;      // seconds per byte
  bool twoLevel = false;
  int ranksPerNode = 1;
  double intraAlpha = 0;
  double intraBeta = 0;
  // The named network model ("" = plain α–β) and its per-size factors.
  std::string netModel;
  PiecewiseFactor latencyFactor;
  PiecewiseFactor bandwidthFactor;
  double tcpGamma = 0;  // bytes; 0: no window bound

  // Across nodes: the latency of a message of `bytes`, and its seconds per
  // byte when `flows` messages share one link at once (each flow bounded by
  // the TCP window, the link by its bandwidth).
  double latencyAt(double bytes) const;
  double secondsPerByteAt(double bytes, int flows = 1) const;
  double messageSeconds(double bytes) const {
    return latencyAt(bytes) + bytes * secondsPerByteAt(bytes);
  }

  // For collectives/collective_cost.h (γ = 0: reduction not charged).
  CostParams costParams() const;
  // "star, α = 50 µs, 1/β = 125 MB/s" (two levels: both).
  std::string describe() const;
};

// `workers` 0: the spec's host count (InvalidArgument if it fixes none).
// InvalidArgument on "mpi", a malformed spec, a fat-tree, torus or XML
// platform, workers < 1 or more workers than the spec's hosts.
NetworkModel networkModel(const std::string& cluster, int workers);

// `model` with the named network model `netModel` (see above; "" leaves it
// plain α–β). Throws InvalidArgument as resolveNetModel does.
NetworkModel withNetModel(NetworkModel model, const std::string& netModel);

}  // namespace tetrad::model
