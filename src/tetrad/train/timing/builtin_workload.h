// builtinTimingWorkload(): the timing-only workload of a built-in model
// (mlp, cnn, resnet20, and the model zoo's tables, sched/model_zoo.h: resnet50,
// bert-base:SEQ, ...) without LibTorch, from the layer tables of
// sched/model_shapes.h, so that a timing-only run of a built-in model runs
// in the LibTorch-free front end (libtorch_parts.h).
//
// It gives what the LibTorch module gives (libTorchTimingWorkload(), checked
// equal for every built-in model and several inputs in
// tests/train/timing_test.cc):
//   slots       the parameters in registration order, named as LibTorch
//               names them ("fc1.weight", "stage2_block1.shortcut.0.weight":
//               a Sequential's children are numbered);
//   stages      the model's forward stages (train/compute/models.cc): one per
//               layer for mlp and cnn; resnet20's stem (conv and bn), its
//               nine blocks and fc;
//   FLOPs       per stage, convolutions and linear layers only (BatchNorm's
//               are not counted, as models.cc counts);
//   buffers     BatchNorm's running mean and variance.
// A zoo model has no LibTorch module here: its tensors carry the reference
// module's names, its stages are its blocks (layer1.0, encoder.layer.3, h.5)
// and its FLOPs are the generator's (scripts/gen_model_zoo.py).
//
// Pure function; thread-safe.
#pragma once

#include <string>

#include "tetrad/sched/model_shapes.h"
#include "tetrad/train/compute/nominal_compute.h"

namespace tetrad::train {

// True for the models builtinTimingWorkload() knows.
bool isBuiltinModel(const std::string& model);

// Throws InvalidArgument for an unknown model or an input it cannot take.
TimingWorkload builtinTimingWorkload(const std::string& model, const sched::ModelInput& input);

}  // namespace tetrad::train
