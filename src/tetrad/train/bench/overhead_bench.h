// `tetrad bench train-overhead`: the framework's cost on one worker.
//
// Trains the same model, batch and number of LibTorch threads twice per
// repeat, alternating: (1) the plain LibTorch loop of plain_loop.h; (2) the
// tetrad trainer (RankTrainer: flat gradient buffer, buckets, aggregate(),
// compute-time injection, metrics) as the only rank of a one-host simulated
// cluster. Both measure wall time of the training steps only (the trainer's
// evaluations are excluded). The ratio framework/plain is the framework's
// efficiency (target: >= 0.95).
//
// This header has no LibTorch include.
//
// Thread-safety: call from the main thread.
#pragma once

#include <cstdint>
#include <vector>

#include "tetrad/train/train_config.h"

namespace tetrad::train {

struct OverheadBenchOptions {
  TrainConfig config;  // model, data, batch size, seed, lr, ...
  int64_t iterations = 200;
  int repeats = 3;
  int threads = 1;
};

struct OverheadBenchResult {
  int64_t parameters = 0;
  std::vector<double> plain;      // samples/s per repeat
  std::vector<double> framework;  // samples/s per repeat
  double bestPlain = 0;
  double bestFramework = 0;
  double ratio() const { return bestPlain > 0 ? bestFramework / bestPlain : 0; }
};

OverheadBenchResult benchTrainOverhead(const OverheadBenchOptions& options);

}  // namespace tetrad::train
