// NominalCompute: the WorkerCompute (worker_compute.h) of `tetrad train
// --timing-only`. It has the model's tensors (sizes and shapes, in parameter
// order), its forward stages and FLOPs, and flat buffers of exactly the
// model's size holding seeded values in [-1, 1), but no model: a pass
// computes nothing and is charged what the compute model says (fixed:,
// flops:, or the probe's measurement of one real pass, compute_probe.h). The
// worker loop (rank_trainer.h) is the real one, so a timing-only run sends
// the messages of a real run at the instants a real run would.
//
// What differs from a real run, by construction:
//   - losses and accuracies are not computed (metrics lines carry null);
//   - gradients are the seeded values, never updated: compressors whose
//     packet size depends on the values (threshold) are refused by
//     resolveConfig(); the non-finite guard sends its messages but has no
//     values to scan;
//   - the backward pass hands gradients to the schedule in reverse
//     parameter order (autograd's order for the built-in models), each
//     stage's share of the pass charged before its first gradient;
//   - no checkpoints (resolveConfig() refuses them).
// Payload-free ranks whose exchange never reads a value (an uncompressed
// all-reduce under bsp) share one gradient buffer: 10,000 ranks need not
// each hold a model (the simulator runs one rank at a time).
//
// This file has no LibTorch include; timing_trainer.h builds the workload.
//
// Thread-safety: one NominalCompute per rank, used by that rank's worker;
// the source is shared by the ranks of one simulation (one at a time).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/compute/compute_probe.h"
#include "tetrad/train/compute/worker_compute.h"
#include "tetrad/train/record/run_meter.h"
#include "tetrad/train/train_config.h"

namespace tetrad::train {

struct TimingWorkload {
  ModelShape shape;                     // tensors, stages and FLOPs
  std::vector<std::string> stageNames;  // one per stage
  size_t trainSamples = 0;              // training-set size (iterations per epoch)
  ComputeProbe probe;                   // --compute measured[*F]: the probe's seconds
  // Floats of the model's floating-point buffers (batch-norm running mean
  // and variance), which every evaluation averages across the workers.
  size_t bufferFloats = 0;
};

// Iterations per epoch of a timing-only run: as a real run, but at least one
// when the training set is smaller than one global batch (large worlds).
int64_t timingStepsPerEpoch(size_t samples, int workers, int batch);

class NominalSource final : public ComputeSource {
 public:
  // `payloadFree`: the simulation's messages carry no payloads.
  NominalSource(const ResolvedConfig& config, const TimingWorkload& workload, bool payloadFree);
  ~NominalSource() override;

  int64_t stepsPerEpoch(int workers, int batch) const override {
    return timingStepsPerEpoch(workload_.trainSamples, workers, batch);
  }
  size_t testSamples() const override { return 0; }
  std::unique_ptr<WorkerCompute> makeWorker(int rank, int workers) override;
  ModelShape serverShape() override { return workload_.shape; }
  PayloadFreeTables* payloadFreeTables() override { return payloadFree_ ? &tables_ : nullptr; }
  // From kSetupProgressRanks ranks on (unless --quiet), a line on stderr at
  // each quarter of the ranks ready, with the wall time since construction.
  void rankReady(int rank, int worldSize) override;

 private:
  const ResolvedConfig& config_;
  const TimingWorkload& workload_;
  bool payloadFree_;
  bool keepsParameters_ = false;  // a rank's parameters are more than its gradients
  bool valuesUnread_ = false;     // ranks may share one gradient buffer
  std::vector<float> shared_;
  PayloadFreeTables tables_;
  std::atomic<int> ranksReady_{0};
  std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();
};

// Simulations of this many ranks or more report their set-up's progress.
inline constexpr int kSetupProgressRanks = 2048;

}  // namespace tetrad::train
