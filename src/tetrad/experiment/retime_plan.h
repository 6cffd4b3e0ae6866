// Retimed runs of a sweep: `retime = true` in [workload] trains each
// synchronous method once per seed and times it on the sweep's other
// networks with `tetrad retime` (docs/experiments.md "Retimed runs").
//
// A synchronous method's trajectory (BSP, Local and post-local SGD, D-PSGD,
// CHOCO: the sync policies whose mode is collective) does not depend on the
// network, so training it again on every network only repeats the same
// losses at the same iterations; the timing-only replay of the trained run on
// another network gives that network's times exactly (train/timing/retime.h,
// tested against real runs by `train_retime`). Asynchronous methods (SSP,
// ASP, AD-PSGD) train on every network, as do runs that charge measured
// compute time, run under MPI, or whose cluster table changes more than the
// network (cluster spec, net_model, net_profile).
//
// markRetimedRuns() decides, for each run of a plan, whether it is a retime
// and of which run: the first earlier run of the same method and seed whose
// train arguments equal its own once the network keys are left out. A
// retimed run keeps its train arguments (listed by --dry-run, validated like
// any run); its hash also covers the source run's, so its folder never
// collides with a trained run of the same arguments.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_plan.h"
#include "tetrad/experiment/sweep_spec.h"

namespace tetrad::experiment {

// Why `run` cannot be retimed from another run ("" when it can), e.g.
// "asynchronous (--sync asp)" or "measured compute time".
std::string retimeRefusal(const RunPlan& run);

// With spec.retime, sets retimeOf, retimeArgs, hash and name of every run of
// `runs` (planRuns' output, in its order) that can be retimed from an
// earlier run of the list; without it, does nothing.
void markRetimedRuns(const SweepSpec& spec, std::vector<RunPlan>& runs);

}  // namespace tetrad::experiment
