// Model shapes for the scheduling cost model: the parameter tensors and
// forward FLOPs of tetrad's models, layer by layer, without LibTorch, and the
// TensorSlots they give under an assumed compute speed.
//
// The tables mirror train/compute/models.cc (same layers, same registration order):
//   mlp       Fashion-MNIST 1×28×28: 784→256→128→10          (235,146 params)
//   cnn       Fashion-MNIST 1×28×28: conv5×5 32, conv5×5 64, fc 512, fc 10
//                                                             (1,663,370 params)
//   resnet20  CIFAR-10 3×32×32: He et al.'s 20-layer ResNet with BatchNorm
//                                                             (272,474 params)
// modelLayers(model, input) gives the same tables for any input shape (as
// train/compute/models.cc builds them for that data set); modelLayers(model) uses
// the inputs above.
// Forward FLOPs per sample count multiply-adds as 2 FLOPs for convolutions
// and linear layers (as train/compute/models.cc does) and 4 per output element for
// BatchNorm; activations and pooling are left out.
//
// makeWorkload() turns a table into slots in backward-ready order: layers
// from the last to the first, and inside a layer its tensors in reverse
// registration order (bias before weight), which is the order PyTorch DDP
// assumes. A layer's backward time (backwardFactor × its forward time) is
// charged to its first ready slot; its other slots follow at no extra time,
// as autograd produces a layer's weight and bias gradients together.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/sched/bucket_plan.h"

namespace tetrad::sched {

struct LayerShape {
  std::string name;                      // "conv1", "stage2_block1.shortcut.bn"
  std::vector<uint64_t> tensorElements;  // parameter tensors, in registration order
  double forwardFlops = 0;               // per sample
  // The LibTorch shape of each tensor (same order): [out, in] for a linear
  // weight, [out, in, k, k] for a convolution, [n] for biases and
  // BatchNorm (PowerSGD's cost model views [d0, rest] as a matrix).
  std::vector<std::vector<int64_t>> tensorShapes;
  // A BatchNorm layer: its tensors are weight and bias, it keeps a running
  // mean and variance of `tensorElements[0]` floats each, and its FLOPs are
  // not counted by train/compute/models.cc.
  bool batchNorm = false;
  // The model zoo's tables (model_zoo.h) name each tensor and the forward stage
  // (block) of the layer; empty for the tables below, whose tensors are
  // "weight" and "bias" and whose stage is the first component of the name.
  std::string stage;
  std::vector<std::string> tensorNames;
};

// An image classification input: channels × height × width, and classes.
struct ModelInput {
  int channels = 1;
  int height = 28;
  int width = 28;
  int classes = 10;
};

// "mlp", "cnn", "resnet20" or a zoo model (model_zoo.h: "resnet50",
// "bert-base:256", ...); throws InvalidArgument naming the known models.
std::vector<LayerShape> modelLayers(std::string_view model);
// The same for `input`; throws InvalidArgument on an input the model cannot
// take (as train/compute/models.cc does). A zoo model ignores `input` (it
// has its own).
std::vector<LayerShape> modelLayers(std::string_view model, const ModelInput& input);

uint64_t parameterCount(std::span<const LayerShape> layers);

struct ComputeAssumption {
  double flopsPerSecond = 100e9;  // sustained, forward and backward alike
  int batch = 32;                 // samples per worker and iteration
  double backwardFactor = 2;      // backward FLOPs / forward FLOPs
};

struct Workload {
  std::vector<TensorSlot> slots;            // backward-ready order
  std::vector<double> layerForwardSeconds;  // per forward layer
};

// Throws InvalidArgument on a non-positive speed, batch or factor, or a
// layer without tensors.
Workload makeWorkload(std::span<const LayerShape> layers, const ComputeAssumption& compute);

}  // namespace tetrad::sched
