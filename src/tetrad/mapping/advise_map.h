// A method map of a finished sweep (`tetrad advise --results DIR --map`, a
// sweep file's [map]): the winner per network of the sweep's methods,
// retimed or predicted (advise_map.cc says how), written as map.csv and
// pictures into the sweep folder, with the advisor's agreement printed.
// The command line is parsed in apps/ (advise_command.cc, run_command.cc),
// which fills AdviseMapFlags, this build's binary included.
//
// Main thread only: a replay owns the process's simulation while it runs.
#pragma once

#include <string>

#include "tetrad/model/iteration_theory.h"

namespace tetrad::mapping {

struct AdviseMapFlags {
  std::string results;                           // the sweep folder (map.csv and pictures go there)
  std::string bandwidths = "100Mbps:400Gbps:6";  // MIN:MAX:STEPS, log-spaced
  std::string latencies = "1us:1ms:3";
  // The compute axis: factors on the runs' compute time per iteration
  // ("0.1,1,10": a device ten times faster, as trained, ten times slower),
  // which move R = communication / compute by their inverse.
  std::string computeScales = "1";
  std::string netModel;  // "": each run's own (recorded in its config.json)
  double noiseRatio = model::kDefaultNoiseRatio;  // s of the multipliers (iteration_theory.h)
  bool fitNoiseRatio = false;  // fit s to the sweep instead (model/noise_ratio_fit.h)
  int jobs = 1;                // replays at a time (1: in this process; more: child processes)
  // The tetrad binary that replays the runs, keying the replay cache ("":
  // this one; another one runs them as its child processes even at jobs 1).
  std::string exe;
  // This build's tetrad binary (the front end's childProgram()): replays run
  // in this process when `exe` is it (or this process's own) and jobs is 1.
  std::string thisBuild;
};

void runAdviseMap(const AdviseMapFlags& flags);

}  // namespace tetrad::mapping
