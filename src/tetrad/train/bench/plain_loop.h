// A plain single-process LibTorch training loop: the yardstick that the
// distributed trainer is checked and measured against.
//
// It uses only LibTorch and the same data pipeline (one worker's iid sample
// order, partition.h; BatchBuilder): model, torch::optim::SGD with the
// config's momentum, weight decay and learning-rate schedule, zero_grad /
// forward / backward / step. No transport, flat gradient buffer, bucketing
// or compression. Uses:
//   - equivalence tests: N ranks with batch b under BSP must end with the
//     parameters of this loop with batch N*b;
//   - `tetrad bench train-overhead`: the framework's single-worker
//     throughput against this loop's (train/bench/overhead_bench.h).
//
// This header has no LibTorch include.
//
// Thread-safety: call from one thread; uses LibTorch's global generator.
#pragma once

#include <cstdint>
#include <vector>

#include "tetrad/train/data/dataset.h"
#include "tetrad/train/train_config.h"

namespace tetrad::train {

struct PlainLoopResult {
  std::vector<float> parameters;  // final, flattened in parameter order
  int64_t iterations = 0;
  int64_t samples = 0;
  double seconds = 0;  // wall time of the loop
};

// Trains `config.model` on `data` for `iterations` steps of `batchSize`
// (the config's batch size and workers are ignored; iid order of one worker).
PlainLoopResult trainPlainLoop(const TrainConfig& config, const DataSplits& data, int batchSize,
                               int64_t iterations);

}  // namespace tetrad::train
