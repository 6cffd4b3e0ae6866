// The learning-rate tuning section of `tetrad report`: per tuned method a
// table of its grid (rate, status, the metric at the budget, training and
// wall time), the pick, and what tuning cost beside the compared runs.
//
// Numbers come from the tuning runs' folders, named by OUT/tuning/
// tuning.json (lr_tuning.h); the pick is recomputed from them with the rule
// `tetrad run` used.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/lr_tuning.h"
#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {

// "" when `tuning` is empty; otherwise a markdown section ("## Learning-rate
// tuning") for `tuning`, with its cost against that of `runs` (the sweep's
// compared runs).
std::string tuningSection(const std::vector<TuningResult>& tuning,
                          const std::vector<RunRecord>& runs);

}  // namespace tetrad::experiment
