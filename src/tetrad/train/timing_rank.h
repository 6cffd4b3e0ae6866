// Timing-only worker loop: one rank of a `tetrad train --timing-only` run
// (timing_trainer.h). It runs the run's real SyncPolicy, bucket plan,
// Exchange and compressor objects on buffers of the model's exact size, but
// computes nothing: each iteration charges the compute model's seconds
// (fixed:DURATION, flops:GFLOPS, or the probe's measurement) and exchanges
// messages of exactly the sizes a real run sends, so its simulated time and
// traffic follow the real method while no LibTorch code runs.
//
// Per iteration, as RankTrainer (rank_trainer.h) does:
//   collective policies (bsp, local:H, post-local, gossip): charge compute ->
//     [the non-finite guard's agreement: its all-gather of one float per
//     worker, unless --on-nonfinite off] -> [average the gradient buckets] ->
//     charge the step ->
//     [average the model-change buckets | mix models with the neighbours];
//   push-pull policies (ssp, asp): charge compute and step -> push, pull.
// The buffers hold seeded values in [-1, 1) once, at the start; compressors
// encode whatever the buffers hold then (payload-free receives leave them
// untouched; sizes of the accepted compressors do not depend on the values).
// Set-up mirrors the real run (rank 0 broadcasts the parameters, servers are
// seeded) so that every rank starts its clock where a real run would.
// Evaluations compute nothing (no model) but send the real run's messages
// at the real run's points (rank_trainer_eval.cc: the buffers' and the
// statistics' all-reduces; with gossip, the average model's and, on every
// metrics line, the consensus distance's), bracketed out of the training
// time as there, so that the clocks of the two runs stay alike: metrics
// lines carry loss and accuracy as null, and gossip runs report no
// consensus distance.
//
// The parameter server needs message payloads (its servers parse packets),
// so `ps` runs on a transport that carries them: sizes and times are exact,
// only memory and wall time grow with the world.
//
// This file has no LibTorch include.
//
// Thread-safety: one call per rank, on that rank's worker.
#pragma once

#include <cstdint>
#include <vector>

#include "tetrad/sched/bucketing.h"
#include "tetrad/train/compute_probe.h"
#include "tetrad/train/rank_trainer.h"
#include "tetrad/train/run_recorder.h"
#include "tetrad/train/train_config.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

struct TimingWorkload {
  std::vector<ParameterSlot> slots;  // the model's tensors, in parameter order
  double forwardFlops = 0;           // one forward pass of one sample (flops:GFLOPS)
  size_t trainSamples = 0;           // training-set size (iterations per epoch)
  ComputeProbe probe;                // --compute measured[*F]: the probe's seconds
  // Floats of the model's floating-point buffers (batch-norm running mean
  // and variance), which every evaluation averages across the workers.
  size_t bufferFloats = 0;
};

// Iterations per epoch of a timing-only run: as a real run, but at least one
// when the training set is smaller than one global batch (large worlds).
int64_t timingStepsPerEpoch(size_t samples, int workers, int batch);

// Runs this rank to the end; `recorder` is null except on the output rank.
// RankResult's accuracies and losses are NaN (there is no model).
// `totals` has one slot per rank of the world and is shared by every rank of
// the (one-process) simulation: payload-free messages cannot carry the run
// totals, so each rank writes its own slot and, after the all-gather of the
// totals that a real run does too, every rank reads them all.
// `shared`: one buffer for the whole run (empty at first), which payload-
// free ranks whose exchange never reads gradient values use instead of
// their own (the simulator runs one rank at a time).
RankResult runTimingRank(const ResolvedConfig& config, const TimingWorkload& workload,
                         Transport& world, RunRecorder* recorder, std::vector<RankTotals>& totals,
                         std::vector<float>& shared);

}  // namespace tetrad::train
