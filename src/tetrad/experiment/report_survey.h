// `tetrad report --layout survey DIR`: docs/survey.md's tables, regenerated
// from a sweep's run folders (they were printed by a separate script that
// re-implemented this layer's aggregation).
//
// Per cluster, one row per method with its seeds aggregated as the full
// report aggregates them (run_groups.h): lr, final accuracy (mean ± sample
// std), time to target, each speed-up over the fp32 and the fp16 baseline
// with its 95% bootstrap interval over seeds (bootstrap.h), time per
// iteration, iterations to target, bytes per worker per iteration and the
// communication share; then the verdict: the fastest method to the target
// and whether its interval against the runner-up excludes a tie. Then the
// learning-rate tuning (report_tuning.h) and, where the sweep drew one, the
// map's winner per cell (map.csv, method_map.h). Nothing is written to DIR.
//
// Pure functions apart from reading DIR; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_groups.h"

namespace tetrad::experiment {

// The per-cluster tables and verdicts.
std::string surveyTables(const std::vector<ClusterGroup>& groups);
// The winner grid of a map.csv (latency rows, bandwidth columns); "" when
// the file does not exist. A malformed file is an InvalidArgument naming it.
std::string surveyMapTable(const std::string& mapCsvPath);
// All of it for the run folders under `dir` (InvalidArgument when it holds
// no finished run).
std::string surveyReport(const std::string& dir);

}  // namespace tetrad::experiment
