// `tetrad bench sched`: per scheduling policy, the simulated time of one
// training iteration beside the pipeline model's prediction of it.
//
// Each policy trains the same short run (same model, seed, batch, workers,
// cluster and compute model) on the SimGrid engine with real payloads; its
// simulated seconds per iteration are the run's training time over its
// iterations. The prediction is sched/pipeline_cost.h's for the plan the
// policy makes from the same inputs the trainer plans with: the stages'
// FLOPs, the compute model's backward time split over them, and the α–β cost
// of a ring all-reduce on the cluster spec's end-to-end latency and link
// bandwidth. Forward-gating policies (priority) are predicted with forward
// overlap (T_ov), the others without (T).
//
// So that the simulated network is the one the formula assumes, the runs use
// SimGrid's CM02 model without cross-traffic on a star (contention-free, no
// latency or bandwidth factors); the non-finite guard, evaluations and the
// timeline are off. What remains between the two columns is what the model
// leaves out (the optimizer step, encode/decode, the first iteration's
// forward that nothing overlaps).
//
// Thread-safety: call from the main thread; runs the simulator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tetrad/train/train_config.h"

namespace tetrad::train {

struct SchedBenchOptions {
  // model, batch, workers, cluster (sim: star), compute (any but measured),
  // arch (allreduce:ring), compress, seed.
  TrainConfig config;
  std::vector<std::string> policies = {"none", "wfbp", "fusion:25MiB", "mgwfbp", "priority:4MiB"};
  int64_t iterations = 5;
};

struct SchedBenchRow {
  std::string policy;
  double simulatedSeconds = 0;  // per iteration
  double predictedSeconds = 0;  // per iteration (T, or T_ov for priority)
  int64_t messages = 0;         // per iteration, of the predicted plan
};

// Throws InvalidArgument for a cluster that is not a simulated star, a
// measured compute model or an arch other than allreduce:ring.
std::vector<SchedBenchRow> benchSchedules(const SchedBenchOptions& options);

// The prediction alone (no run): the policy's plan and its iteration time.
SchedBenchRow predictSchedule(const TrainConfig& config, const std::string& policy);

}  // namespace tetrad::train
