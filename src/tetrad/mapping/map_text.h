// The text a method map prints beside map.csv (advise_map.h): the winner of
// every cell as a table, and how often the advisor picked it, against the
// two baselines of experiment/map_baselines.h. Pure functions returning
// text; any thread.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/method_map.h"

namespace tetrad::mapping {

// One row per latency (per panel — worker count and compute scale — headed
// "# 8 workers, compute ×0.1" when the map has several), one column per
// bandwidth in Gb/s; "-" where no method reaches the target or the panel
// has no such cell.
std::string winnerTable(const experiment::MapAxis& bandwidths, const experiment::MapAxis& latencies,
                        const std::vector<experiment::MapCell>& cells);

// The advisor's agreement with the map (exact picks, picks within 10%, ties
// within one evaluation step, crowded cells, each disagreement), then the
// cost-model-alone and three-rule baselines' counts. Without a BSP baseline
// (`anyBaseline` false) one line saying why nothing is counted.
// `noiseRatioText`: the s used, as it should be printed ("143.4, fitted").
std::string agreementText(const std::vector<experiment::MapCell>& cells, bool anyBaseline,
                          const std::string& noiseRatioText);

}  // namespace tetrad::mapping
