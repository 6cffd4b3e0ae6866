// The plots of `tetrad report`, as a gnuplot script plus its data files.
//
// Per cluster: test accuracy against training time (accuracy_time-C) and
// against the bytes rank 0 has sent (accuracy_bytes-C), one line per method
// (the mean over its seeds, with a band of ± one standard deviation when it
// has several); the same accuracy-time curves as small multiples
// (accuracy_panels-C: one panel per dimension — sync, arch, compress,
// sched — in which methods differ from the baseline, the baseline in black
// in each, at most 7 other methods per panel so that no colour/marker pair
// repeats, a log time axis where a panel's times span more than 30×; drawn
// when the cluster has a baseline); and the mean compute and communication
// time per iteration stacked per method (time_breakdown-C). When some method runs on
// clusters of one spec with different worker counts, also throughput
// against workers (scaling). Each plot is written as PNG and as SVG.
// C is the cluster label with characters other than letters, digits and
// . _ + - replaced by _.
//
// buildPlots() is pure apart from reading each run's metrics.jsonl; nothing
// is written until the caller saves the files and runs gnuplot (gnuplot.h).
//
// Thread-safety: plain functions.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_groups.h"

namespace tetrad::experiment {

struct PlotSet {
  std::string script;                                     // gnuplot script
  std::vector<std::pair<std::string, std::string>> data;  // file name → contents
  std::vector<std::string> images;                        // PNG and SVG file names
};

// `png`: the PNG terminal to use ("pngcairo" or "png").
PlotSet buildPlots(const std::vector<ClusterGroup>& groups, const std::string& png);

// `label` made safe for a file name.
std::string fileSafe(const std::string& label);

}  // namespace tetrad::experiment
