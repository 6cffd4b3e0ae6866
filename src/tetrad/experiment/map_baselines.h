// Two baselines the advisor's agreement with a method map is judged against
// (docs/advise.md, "Agreement"): a cell's advice is the method with the
// smallest predicted time to target (advisedOf), so each baseline is the
// map's cells with the predictions replaced.
//
//   unit multipliers  the cost model alone: every method's predicted
//                     iterations are uncompressed BSP's (every convergence
//                     multiplier 1), so the fastest predicted time per
//                     iteration wins.
//   three rules       a practitioner's rule of thumb on the cell's bandwidth:
//                     at 10 Gb/s or more, uncompressed BSP; below 1 Gb/s, a
//                     compressor with error feedback (Top-k/Random-k with ef,
//                     DGC, PowerSGD, EF-signSGD), else Local SGD, else BSP;
//                     in between, fp16 (or bf16), else BSP.
//
// Methods are recognised by their entries' kind (MapEntry::kind, from the
// policies' traits); uncompressed BSP is the first kPlainBsp entry.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/method_map.h"

namespace tetrad::experiment {

std::vector<MapCell> withUnitMultipliers(std::vector<MapCell> cells);
std::vector<MapCell> withThreeRulePicks(std::vector<MapCell> cells);

// The three rules' pick in `cell` ("" when it has none of the methods named).
std::string threeRulePick(const MapCell& cell);

}  // namespace tetrad::experiment
