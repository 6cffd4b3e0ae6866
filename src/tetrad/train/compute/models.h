// Models: the networks `tetrad train --model` builds, as LibTorch modules.
//
//   mlp       flatten -> 256 -> ReLU -> 128 -> ReLU -> classes
//   cnn       two 5x5 conv + ReLU + 2x2 max-pool layers (32 and 64 channels),
//             then 512 -> ReLU -> classes (the classic Fashion-MNIST CNN)
//   resnet20  CIFAR-style ResNet-20 (He et al. 2016): 3x3 conv, three stages
//             of three basic blocks (16, 32, 64 channels, batch norm,
//             projection shortcuts), global average pooling, linear; works on
//             28x28 and 32x32 inputs
//   FILE.pt   a TorchScript module saved from Python (scripted_model.h)
//
// Each model records the FLOPs of one forward pass of one sample (2 per
// multiply-add of conv and linear layers), used by the flops:GFLOPS compute
// model (compute_model.h). Parameter initialisation draws from LibTorch's
// global generator: makeSeededModel() seeds it and builds under one lock so
// every rank builds the same initial replica, even on parallel threads.
//
// Thread-safety: a model belongs to one rank (one replica per rank, even when
// all ranks are SimGrid actors of one process).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace tetrad::train {

struct InputShape {
  int channels = 1;
  int height = 28;
  int width = 28;
  int numClasses = 10;
};

// The forward pass is a chain of stages (the layers that own parameters,
// each with its activation and pooling): forward(x) runs forwardStage(0..S-1)
// in order. A scheduler can gate stage s on the arrival of its parameters'
// update (priority scheduling overlaps the next forward with the exchange).
class Model : public torch::nn::Module {
 public:
  // Logits [batch, classes] for images [batch, channels, height, width].
  torch::Tensor forward(torch::Tensor images);
  virtual torch::Tensor forwardStage(int stage, torch::Tensor x) = 0;
  int stageCount() const { return int(stageNames_.size()); }
  const std::string& stageName(int stage) const { return stageNames_.at(size_t(stage)); }
  // FLOPs of one sample's forward pass through `stage` (their sum is
  // forwardFlops()).
  double stageFlops(int stage) const { return stageFlops_.at(size_t(stage)); }
  // The stage owning parameter `name` (as named_parameters() spells it);
  // throws InvalidArgument for a name no stage owns.
  int stageOfParameter(const std::string& name) const;
  // FLOPs of one forward pass of one sample.
  double forwardFlops() const { return forwardFlops_; }
  int64_t parameterCount() const;

 protected:
  // Declares the next stage: its name, the modules (first component of a
  // parameter name) it owns and its FLOPs per sample.
  void addStage(std::string name, std::vector<std::string> modules, double flops);

  double forwardFlops_ = 0;

 private:
  std::vector<std::string> stageNames_;
  std::vector<std::vector<std::string>> stageModules_;
  std::vector<double> stageFlops_;
};
using ModelPtr = std::shared_ptr<Model>;

// Throws InvalidArgument for an unknown name or an input the model cannot
// take (e.g. images smaller than its pooling needs).
ModelPtr makeModel(const std::string& name, const InputShape& shape);

// makeModel() with its parameters drawn right after torch::manual_seed(seed),
// both under one process-wide lock: LibTorch's generator is global, so two
// threads building models at once would otherwise interleave their draws.
// Any thread.
ModelPtr makeSeededModel(const std::string& name, const InputShape& shape, uint64_t seed);

}  // namespace tetrad::train
