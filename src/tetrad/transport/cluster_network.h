// ClusterNetwork: the links a "sim:..." cluster spec describes, as plain
// numbers for analytic cost models (model/), without SimGrid headers.
//
// clusterNetwork() (launch/launcher.h) fills it. The spec is parsed by the
// simulator's own parser (transport/sim/cluster_spec.h) behind an engine
// entry point (engines.h), so a model and a simulated run always read the
// same bandwidths and latencies. A star
// (sim:[N x]BW,LAT) gives one link per host; a two-level spec
// (sim:NxG:BW1,LAT1:BW2,LAT2) gives the links inside a node (intra) and the
// node uplinks. Fat-trees, tori and XML platforms are reported as kOther:
// their routes are not described here.
//
// Thread-safety: plain values.
#pragma once

#include <string>

namespace tetrad {

enum class ClusterShape { kStar, kTwoLevel, kOther };

struct ClusterNetwork {
  ClusterShape shape = ClusterShape::kStar;
  int hosts = 0;         // hosts the spec fixes; 0 when --workers decides
  double bandwidth = 0;  // bytes/s: star: each host's link; two-level: the node uplinks
  double latency = 0;    // seconds: star: end to end; two-level: the uplink level
  // Two-level only: the links inside a node, and ranks per node (else 1).
  double intraBandwidth = 0;
  double intraLatency = 0;
  int ranksPerNode = 1;
};

}  // namespace tetrad
