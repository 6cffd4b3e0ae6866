// libTorchTimingWorkload() (libtorch_parts.h): a model's timing-only
// workload read from the LibTorch module itself.
#include "tetrad/train/compute/models.h"
#include "tetrad/train/libtorch_parts.h"

namespace tetrad::train {

TimingWorkload libTorchTimingWorkload(const std::string& name, const sched::ModelInput& input) {
  const ModelPtr model =
      makeModel(name, {input.channels, input.height, input.width, input.classes});
  TimingWorkload w;
  for (const auto& [tensorName, p] : model->named_parameters().pairs()) {
    w.shape.slots.push_back({tensorName, size_t(p.numel()), p.sizes().vec()});
    w.shape.slotStage.push_back(model->stageOfParameter(tensorName));
  }
  for (int s = 0; s < model->stageCount(); ++s) {
    w.shape.stageFlops.push_back(model->stageFlops(s));
    w.stageNames.push_back(model->stageName(s));
  }
  for (const torch::Tensor& b : model->buffers()) {
    if (b.is_floating_point()) w.bufferFloats += size_t(b.numel());
  }
  w.shape.forwardFlops = model->forwardFlops();
  return w;
}

}  // namespace tetrad::train
