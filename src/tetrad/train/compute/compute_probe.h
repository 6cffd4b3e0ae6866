// Compute probe: one measured forward/backward and optimizer step of a model,
// for timing-only runs (timing_trainer.h) under --compute measured.
//
// measureComputeProbe() builds `model` for `input`, runs one warm-up
// iteration (first-touch allocations) and then one measured iteration on a
// random batch of `batch` samples: forward, cross-entropy, backward, SGD
// step with momentum and weight decay, one LibTorch thread. A timing-only run
// then charges these seconds on every iteration of every rank, as a real run
// charges each iteration's own measurement.
//
// This header has no LibTorch include; the .cc is the only LibTorch code a
// timing-only run executes.
//
// Thread-safety: call from the main thread, before the engine starts.
#pragma once

#include <cstdint>
#include <string>

namespace tetrad::train {

struct ComputeProbe {
  double forwardBackward = 0;  // wall seconds of one forward + backward
  double step = 0;             // wall seconds of one optimizer step
};

struct ProbeInput {
  int channels = 1, height = 28, width = 28, classes = 10;
};

ComputeProbe measureComputeProbe(const std::string& model, const ProbeInput& input, int batch,
                                 uint64_t seed);

}  // namespace tetrad::train
