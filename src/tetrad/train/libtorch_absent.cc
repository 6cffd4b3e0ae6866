// train/'s LibTorch parts (libtorch_parts.h) for programs without LibTorch
// (CMake target tetrad_train_without_libtorch): each throws LibTorchRequired.
// The front end `tetrad` links it, and its main() then re-executes the
// command line as tetrad-torch, which has the real ones.
#include "tetrad/train/compute/compute_probe.h"
#include "tetrad/train/compute/model_file.h"
#include "tetrad/train/libtorch_parts.h"

namespace tetrad::train {

TrainSummary runRealTraining(const ResolvedConfig&) {
  TETRAD_FAIL(LibTorchRequired, "a run that trains");
}

TimingWorkload libTorchTimingWorkload(const std::string& model, const sched::ModelInput&) {
  TETRAD_FAIL(LibTorchRequired, "the model {}", model);
}

ComputeProbe measureComputeProbe(const std::string& model, const ProbeInput&, int, uint64_t) {
  TETRAD_FAIL(LibTorchRequired, "the measured compute probe of {}", model);
}

model::Workload scriptedWorkload(const std::string& path, int, int, int) {
  TETRAD_FAIL(LibTorchRequired, "the model {}", path);
}

}  // namespace tetrad::train
