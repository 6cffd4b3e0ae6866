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
// Thread-safety: main thread only, after creating the engine and before
// building the platform.
#pragma once

#include <string>
#include <vector>

namespace tetrad::sim {

// Applies "NAME:VALUE" items. Throws InvalidArgument naming the item when it
// is malformed or SimGrid rejects its value, Unsupported for an item not in
// the supported list.
void applySimConfig(const std::vector<std::string>& items);

}  // namespace tetrad::sim
