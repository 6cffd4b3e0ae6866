// `tetrad advise --results DIR --map` (advise_map.cc): the winner per
// network of a finished sweep's methods, retimed or predicted.
#pragma once

#include <string>

namespace tetrad::app {

struct AdviseMapFlags {
  std::string results;                           // the sweep folder (map.csv and pictures go there)
  std::string bandwidths = "100Mbps:400Gbps:6";  // MIN:MAX:STEPS, log-spaced
  std::string latencies = "1us:1ms:3";
  std::string netModel;  // "": each run's own (recorded in its config.json)
};

void runAdviseMap(const AdviseMapFlags& flags);

}  // namespace tetrad::app
