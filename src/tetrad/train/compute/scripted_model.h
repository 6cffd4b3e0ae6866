// Own models: `tetrad train --model FILE.pt` trains a TorchScript module
// saved from Python (`torch.jit.script(model).save("FILE.pt")`) in tetrad's
// loop like a built-in model (models.h), on both engines, with every
// sync/arch/compress/sched point.
//
// How the module becomes a Model:
//   - Parameters and buffers. The module's tensors are registered, under the
//     names the module gives them ("features.0.weight"), in a tree of holder
//     modules, so named_parameters()/named_buffers() list the very tensors
//     the TorchScript module computes with: an optimizer step, a broadcast,
//     a checkpoint restore or batch norm's running statistics change both.
//     Parameters must be float32; a module without parameters is refused.
//   - Forward stages (for priority scheduling, models.h). When the module
//     has top-level children, owns no parameter itself, and running its
//     children one after the other gives exactly what forward() gives (checked
//     bit for bit on a probe batch), each child that owns parameters is a
//     stage (parameterless children join the stage after them, or the last
//     one). Otherwise the whole forward() is one stage and stagesNote() says
//     why; schedules then cannot gate the next forward layer by layer.
//   - FLOPs per sample and stage: counted on one probe sample with
//     FlopCounter (convolutions and matrix products, 2 per multiply-add, the
//     rule of the built-in models); they feed --compute flops:GFLOPS,
//     timing-only runs and the advisor.
//   - The output must be logits [batch, classes] for the data set's classes.
// The TorchScript graph executor's optimisations (profiling, fusion) are
// switched off once, process-wide, when a model file is loaded: each op then
// runs as LibTorch's eager op with autograd, so N ranks and one process with
// N× the batch stay equal and runs are repeatable.
//
// Thread-safety: as models.h (one model per rank); loadScriptedModel() may
// be called from any thread (makeSeededModel() serialises it).
#pragma once

#include <torch/script.h>

#include <string>
#include <vector>

#include "tetrad/train/compute/model_file.h"
#include "tetrad/train/compute/models.h"

namespace tetrad::train {

class ScriptedModel : public Model {
 public:
  // Throws InvalidArgument (naming the file) for a missing or unreadable
  // file, one that is not a TorchScript module, a module without float32
  // parameters, or one whose output for `shape` is not [batch, classes]
  // (shape.numClasses 0: any number of classes >= 2).
  ScriptedModel(const std::string& path, const InputShape& shape);

  torch::Tensor forwardStage(int stage, torch::Tensor x) override;
  void train(bool on = true) override;

  // How the stages were chosen, for the run's opening line
  // ("4 forward stages: conv1, conv2, fc1, fc2" or "1 forward stage: ...").
  const std::string& stagesNote() const { return stagesNote_; }

 private:
  void registerTensors();
  void chooseStages(const InputShape& shape);

  torch::jit::Module module_;
  std::string path_;
  // Per stage: the top-level children it runs, in order (empty: forward()).
  std::vector<std::vector<torch::jit::Module>> stageChildren_;
  std::string stagesNote_;
};

// The model file a --model value names, loaded for `shape`; see ScriptedModel.
ModelPtr loadScriptedModel(const std::string& path, const InputShape& shape);

}  // namespace tetrad::train
