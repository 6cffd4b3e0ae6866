// Checking every run of a sweep before any starts.
//
// The checks themselves belong to `tetrad train` (its configuration rules
// live with the trainer, which this layer must not include): the caller
// passes a TrainArgsValidator that parses train arguments the way the train
// command does and throws a tetrad error for a bad value or combination. On
// a failure validateRuns() finds the setting to blame — the one whose removal
// makes the run valid — and rethrows as InvalidArgument
// "FILE:LINE:COLUMN: key 'KEY' in [[method]] 'LABEL' (run NAME): MESSAGE".
// When no single setting is to blame, it names the method and the cluster.
//
// Thread-safety: calls `validate` on the calling thread only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tetrad/experiment/run_plan.h"

namespace tetrad::experiment {

// Throws (any tetrad::Error) when `trainArgs` (the arguments after
// `tetrad train`) are not a valid run.
using TrainArgsValidator = std::function<void(const std::vector<std::string>& trainArgs)>;

// Validates every run; throws InvalidArgument for the first bad one.
void validateRuns(const std::vector<RunPlan>& runs, const TrainArgsValidator& validate);

}  // namespace tetrad::experiment
