// runTimingOnly(): a `tetrad train --timing-only` run — the simulated time
// and traffic of a method without training anything, so that hundreds or
// thousands of simulated workers take seconds of wall time.
//
// What it needs instead of a model and data:
//   - the model's parameter tensors, forward stages and FLOPs for the data
//     set's input shape: a built-in model's from its layer table, without
//     LibTorch (builtin_workload.h); a TorchScript file's read once from the
//     LibTorch module (libtorch_parts.h);
//   - the training-set size (iterations per epoch): the data set's standard
//     size (fashion-mnist and mnist 60,000 images 1×28×28, cifar10 50,000
//     3×32×32, synthetic 8,192 1×28×28), capped by --train-samples; no file
//     is read;
//   - compute per iteration from --compute: fixed:DURATION, flops:GFLOPS
//     (FLOPs of the convolution and linear layers, as train/compute/models.cc counts
//     them), or measured[*F]: one probe (compute_probe.h) measured once and
//     charged on every iteration.
// The ranks run the real worker loop (rank_trainer.h) on NominalCompute
// (nominal_compute.h), on the simulator's payload-free transport (parameter
// servers and AD-PSGD: with payloads, timingOnlyNeedsPayloads() of
// train_config.h). The run folder holds
// config.json, metrics.jsonl (loss and accuracy null) and summary.json
// ("timing_only": true, test accuracy and loss null).
//
// Thread-safety: call from the main thread, one run at a time.
#pragma once

#include "tetrad/train/compute/nominal_compute.h"
#include "tetrad/train/train_config.h"
#include "tetrad/train/trainer.h"

namespace tetrad::train {

// The workload of a timing-only run of `config` (probe included when
// --compute is measured). Throws InvalidArgument for an unknown data set or
// an input the model cannot take.
TimingWorkload timingWorkload(const ResolvedConfig& config);

// Runs the whole timing-only simulation; see the header comment.
TrainSummary runTimingOnly(const ResolvedConfig& config);

}  // namespace tetrad::train
