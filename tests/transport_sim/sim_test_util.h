// Helpers for the SimGrid engine tests: run a worker on a simulated cluster.
#pragma once

#include <string>
#include <vector>

#include "tetrad/transport/engines.h"

namespace tetrad::testing {

// SimGrid configuration that makes a star platform follow α–β exactly.
inline std::vector<std::string> alphaBetaConfig() {
  return {"network/model:CM02", "network/crosstraffic:0"};
}

inline LaunchOptions simOptions(std::string cluster, int workers = 0,
                                std::vector<std::string> config = alphaBetaConfig()) {
  LaunchOptions options;
  options.cluster = std::move(cluster);
  options.workers = workers;
  options.timeoutSeconds = 10;
  options.simConfig = std::move(config);
  return options;
}

}  // namespace tetrad::testing
