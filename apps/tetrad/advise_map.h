// `tetrad advise --results DIR --map` (advise_map.cc): the winner per
// network of a finished sweep's methods, retimed or predicted.
#pragma once

#include <string>

#include "tetrad/model/iteration_theory.h"

namespace tetrad::app {

struct AdviseMapFlags {
  std::string results;                           // the sweep folder (map.csv and pictures go there)
  std::string bandwidths = "100Mbps:400Gbps:6";  // MIN:MAX:STEPS, log-spaced
  std::string latencies = "1us:1ms:3";
  std::string netModel;  // "": each run's own (recorded in its config.json)
  double noiseRatio = model::kDefaultNoiseRatio;  // s of the multipliers (iteration_theory.h)
  bool fitNoiseRatio = false;  // fit s to the sweep instead (model/noise_ratio_fit.h)
  int jobs = 1;                // replays at a time (1: in this process; more: child processes)
  // The tetrad binary that replays the runs, keying the replay cache ("":
  // this one; another one runs them as its child processes even at jobs 1).
  std::string exe;
};

void runAdviseMap(const AdviseMapFlags& flags);

}  // namespace tetrad::app
