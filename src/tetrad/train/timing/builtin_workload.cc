// A built-in model's timing-only workload from its layer table
// (builtin_workload.h).
#include "tetrad/train/timing/builtin_workload.h"

#include <array>

#include "tetrad/sched/model_zoo.h"

namespace tetrad::train {
namespace {

// LibTorch's name of a layer of the table: nn::Sequential numbers its
// children, so resnet20's "shortcut.conv" and "shortcut.bn" are
// "shortcut.0" and "shortcut.1".
std::string torchLayerName(std::string name) {
  for (const auto& [table, torch] : std::array<std::pair<const char*, const char*>, 2>{
           {{"shortcut.conv", "shortcut.0"}, {"shortcut.bn", "shortcut.1"}}}) {
    if (name.ends_with(table))
      name.replace(name.size() - std::string(table).size(), std::string::npos, torch);
  }
  return name;
}

}  // namespace

bool isBuiltinModel(const std::string& model) {
  return model == "mlp" || model == "cnn" || model == "resnet20" || sched::isZooModel(model);
}

TimingWorkload builtinTimingWorkload(const std::string& model, const sched::ModelInput& input) {
  const std::vector<sched::LayerShape> layers = sched::modelLayers(model, input);
  TimingWorkload w;
  for (const sched::LayerShape& layer : layers) {
    // A layer's stage: the module it belongs to (the name before the first
    // '.'); a top-level BatchNorm belongs to the convolution before it.
    const std::string module =
        layer.stage.empty() ? layer.name.substr(0, layer.name.find('.')) : layer.stage;
    const bool joinsPrevious =
        layer.batchNorm && module == layer.name && !w.stageNames.empty() && layer.stage.empty();
    if (!joinsPrevious && (w.stageNames.empty() || w.stageNames.back() != module)) {
      w.stageNames.push_back(module);
      w.shape.stageFlops.push_back(0);
    }
    const int stage = int(w.stageNames.size()) - 1;
    if (!layer.batchNorm) w.shape.stageFlops.back() += layer.forwardFlops;
    const std::string prefix = torchLayerName(layer.name);
    for (size_t t = 0; t < layer.tensorElements.size(); ++t) {
      std::string name = t < layer.tensorNames.size() ? layer.tensorNames[t]
                                                      : prefix + (t == 0 ? ".weight" : ".bias");
      w.shape.slots.push_back(
          {std::move(name), size_t(layer.tensorElements[t]), layer.tensorShapes[t]});
      w.shape.slotStage.push_back(stage);
    }
    if (layer.batchNorm) w.bufferFloats += 2 * size_t(layer.tensorElements[0]);
  }
  for (double flops : w.shape.stageFlops) w.shape.forwardFlops += flops;
  return w;
}

}  // namespace tetrad::train
