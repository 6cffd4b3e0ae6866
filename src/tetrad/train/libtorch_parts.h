// The parts of train/ that need LibTorch, as the rest of tetrad calls them.
//
// The `tetrad` command is two programs. Loading LibTorch costs every process
// ~0.75 s of start-up on a 2-core machine (its static initialisation), which
// most commands never need: advise, report, retime, sweeps, topo, the
// compression benches, timing-only runs of the built-in models, and every
// command line that is refused. So:
//   - `tetrad` (the front end) links train/'s LibTorch-free core only
//     (CMake target tetrad_train_core) and defines each function below as
//     throwing LibTorchRequired (libtorch_absent.cc, CMake target
//     tetrad_train_without_libtorch);
//     main() catches that and re-executes the same command line as
//     `tetrad-torch`, found beside it.
//   - `tetrad-torch`, the test binaries and the benches link train/'s
//     LibTorch parts (CMake target tetrad_train), which define them.
// A call below must therefore come before the command has any effect: no
// file written, nothing printed or flushed, no engine started, no child
// process. The callers (trainer.cc, timing/timing_trainer.cc, the advise
// and run commands) make these calls first.
//
// Where each is defined in tetrad_train:
//   runRealTraining           real_training.cc
//   libTorchTimingWorkload    timing/libtorch_workload.cc
//   scriptedWorkload          compute/scripted_model.cc (compute/model_file.h)
//   measureComputeProbe       compute/compute_probe.cc (compute_probe.h)
// (countParameters() of trainer.h is LibTorch's too, in real_training.cc,
// and has no front-end definition: only the LibTorch commands call it.)
//
// Thread-safety: as each function's own header says.
#pragma once

#include <string>

#include "tetrad/core/error.h"
#include "tetrad/sched/model_shapes.h"
#include "tetrad/train/compute/nominal_compute.h"
#include "tetrad/train/train_config.h"
#include "tetrad/train/trainer.h"

namespace tetrad::train {

// Thrown by the front end's definitions: `what` says which step needs
// LibTorch ("a run that trains", "the TorchScript model m.pt").
class LibTorchRequired : public Error {
 public:
  using Error::Error;
};

// A run that computes gradients (not --timing-only), from its resolved
// config: loads the data, launches the ranks on LibTorch replicas and
// returns rank 0's summary (trainer.h's runTraining() calls it).
TrainSummary runRealTraining(const ResolvedConfig& config);

// The tensors, stages, FLOPs and floating buffers of `model` (built-in or a
// TorchScript file) for `input`, read from the LibTorch module built once.
// Timing-only runs of the built-in models use builtinTimingWorkload()
// (timing/builtin_workload.h), which gives the same without LibTorch.
TimingWorkload libTorchTimingWorkload(const std::string& model, const sched::ModelInput& input);

}  // namespace tetrad::train
