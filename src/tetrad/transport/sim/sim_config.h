// SimGrid configuration for one run (--cfg items of LaunchOptions::simConfig).
//
// SimGrid keeps its configuration process-wide and does not reset it when an
// engine is destroyed, so a run that sets network/model:CM02 would leak that
// choice into every later run of the process. applySimConfig first restores
// every item an earlier run changed to the value it had before tetrad first
// changed it (SimGrid's default), then applies this run's items.
//
// SimGrid cannot read back an item of unknown type safely, so only the items
// listed in sim_config.cc (the network, CPU and solver models and their
// factors and precisions) are accepted; any other item is Unsupported.
//
// network/latency-factor and network/bandwidth-factor also take SimGrid's
// per-size interval syntax ("0:2.1;1024:1.4", transport/piecewise_factor.h),
// which SimGrid 3.32 accepts only in its SMPI model and parses once per
// process. tetrad installs such a value as the network model's factor
// callback (NetworkModelIntf::set_lat_factor_cb / set_bw_factor_cb, SimGrid's
// per-size alternative to these items) on the engine of this run, for the
// flows between two different hosts (a rank's messages to itself cross the
// host's loopback, not the network). The rest of the network model is
// unchanged: CM02 charges latency × factor(size) and caps a flow at
// bandwidth × factor(size).
//
// Thread-safety: main thread only, after creating the engine and before
// building the platform (applySimConfig), after building it (installFactors).
#pragma once

#include <string>
#include <vector>

#include "tetrad/transport/piecewise_factor.h"

namespace tetrad::sim {

// The per-size factors of a run (empty: SimGrid's own items decide).
struct SimFactors {
  PiecewiseFactor latency;
  PiecewiseFactor bandwidth;
};

// Applies "NAME:VALUE" items and returns the per-size factors among them.
// Throws InvalidArgument naming the item when it is malformed or SimGrid
// rejects its value, Unsupported for an item not in the supported list.
SimFactors applySimConfig(const std::vector<std::string>& items);

// Installs non-empty factors on the network model of the current engine's
// platform. Throws InvalidArgument when SimGrid refuses (e.g. the same item
// was also given as one number).
void installFactors(const SimFactors& factors);

}  // namespace tetrad::sim
