// Models: the networks `tetrad train --model` builds, as LibTorch modules.
//
//   mlp       flatten -> 256 -> ReLU -> 128 -> ReLU -> classes
//   cnn       two 5x5 conv + ReLU + 2x2 max-pool layers (32 and 64 channels),
//             then 512 -> ReLU -> classes (the classic Fashion-MNIST CNN)
//   resnet20  CIFAR-style ResNet-20 (He et al. 2016): 3x3 conv, three stages
//             of three basic blocks (16, 32, 64 channels, batch norm,
//             projection shortcuts), global average pooling, linear; works on
//             28x28 and 32x32 inputs
//
// Each model records the FLOPs of one forward pass of one sample (2 per
// multiply-add of conv and linear layers), used by the flops:GFLOPS compute
// model (compute_model.h). Parameter initialisation draws from LibTorch's
// global generator: seed it (torch::manual_seed) right before makeModel() so
// every rank builds the same initial replica.
//
// Thread-safety: a model belongs to one rank (one replica per rank, even when
// all ranks are SimGrid actors of one process).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

namespace tetrad::train {

struct InputShape {
  int channels = 1;
  int height = 28;
  int width = 28;
  int numClasses = 10;
};

class Model : public torch::nn::Module {
 public:
  // Logits [batch, classes] for images [batch, channels, height, width].
  virtual torch::Tensor forward(torch::Tensor images) = 0;
  // FLOPs of one forward pass of one sample.
  double forwardFlops() const { return forwardFlops_; }
  int64_t parameterCount() const;

 protected:
  double forwardFlops_ = 0;
};
using ModelPtr = std::shared_ptr<Model>;

// Throws InvalidArgument for an unknown name or an input the model cannot
// take (e.g. images smaller than its pooling needs).
ModelPtr makeModel(const std::string& name, const InputShape& shape);

}  // namespace tetrad::train
