// The comparison tables of `tetrad report`: one markdown table per cluster,
// one row per method (docs/experiments.md explains every column).
//
// Speed-ups are relative to the cluster's baseline (run_groups.h), and for
// methods that compress also to its fp16 baseline: "to target" is the
// baseline's mean time to the target accuracy over the method's (when every
// seed of both reached it), "per iteration" the baseline's mean training
// time per iteration over the method's. A speed-up whose two means differ by
// no more than one standard deviation over seeds (the larger of the two) is
// marked "(tie)". Layer-wise runs are labelled "(layer-wise)". "-" marks a
// value that is missing or not defined (no baseline, target not set or not
// reached).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_groups.h"

namespace tetrad::experiment {

// True when |meanA - meanB| <= the larger of the standard deviations that
// are known (false when neither is: one seed says nothing about noise).
bool withinSpread(double meanA, double stdA, double meanB, double stdB);

// Baseline time over method time, NaN when either is missing or not positive.
double speedUp(double baselineTime, double methodTime);

// The markdown tables (with a heading per cluster) of `groups`.
std::string markdownTables(const std::vector<ClusterGroup>& groups);

// One line naming each cluster's winner: the method (layer-wise ablations
// aside) that reached the target accuracy on every seed in the least
// training time, with its time and its speed-up over the baseline; where no
// method reached the target (or none is set), the most accurate method,
// said as such. "Winner per network: 1GbE topk (0.840 s to 0.78, 2.10×
// bsp); 10GbE ...\n".
std::string winnersLine(const std::vector<ClusterGroup>& groups);

}  // namespace tetrad::experiment
