// The comparison tables of `tetrad report`: one markdown table per cluster,
// one row per method (docs/experiments.md explains every column).
//
// Speed-ups are relative to the cluster's baseline (run_groups.h): "to
// target" is the baseline's time to the target accuracy over the method's
// (when both reached it), "per iteration" the baseline's training time per
// iteration over the method's. "-" marks a value that is missing or not
// defined (no baseline, target not set or not reached).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_groups.h"

namespace tetrad::experiment {

// Baseline time over method time, NaN when either is missing or not positive.
double speedUp(double baselineTime, double methodTime);

// The markdown tables (with a heading per cluster) of `groups`.
std::string markdownTables(const std::vector<ClusterGroup>& groups);

}  // namespace tetrad::experiment
