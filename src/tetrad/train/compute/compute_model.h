// Compute-time models: how much simulated time a rank's computation takes.
//
// On a simulated cluster the trainer measures each rank's forward/backward
// and optimizer step (one LibTorch thread; the wall clock when the rank
// computes inline, the pass's thread CPU clock on the compute pool,
// compute_pool.h) and injects simulated time with Transport::compute().
// --compute chooses what is injected:
//
//   measured        the measured seconds (default)
//   measured*F      measured seconds times F (F = 0.1 emulates a device 10x
//                   faster than this CPU)
//   fixed:DURATION  DURATION per iteration (e.g. fixed:50ms), whatever the
//                   measurement; charged before the gradient exchange
//   flops:GFLOPS    the model's FLOPs (3x the forward pass, per sample, times
//                   the batch) divided by GFLOPS x 1e9
//   throughput:S    one device's published training throughput, S samples per
//                   second at the run's batch: an iteration's forward and
//                   backward take batch / S seconds (the optimizer step is
//                   inside S and charged 0), split over the layers as fixed:
//                   is (backward 2/3 of it, by each stage's FLOP share)
//   device:NAME     a device profile (device_profile.h): the profile's
//   device:FILE     published throughput for the run's model, as
//                   throughput:S, else its effective FLOP rate, as flops:
//                   (NAME: configs/devices/NAME.json; FILE: a .json path)
//
// throughput: and device: become fixed: or flops: once the batch and the
// model are known (resolveComputeModel(); the text keeps its form).
//
// Then, per rank: --straggler RANK:FACTOR multiplies that rank's time by
// FACTOR (repeatable), and --compute-noise SIGMA multiplies every charge by a
// mean-one lognormal factor exp(SIGMA z - SIGMA^2 / 2), seeded by --seed and
// the rank. On MPI computation takes real time and only `measured` (with no
// stragglers or noise) is accepted.
//
// Thread-safety: a ComputeTimer belongs to one rank.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "tetrad/model/compute_spec.h"

namespace tetrad::train {

// The parsed text (model/compute_spec.h), shared with the layers below train/.
using model::ComputeSpec;
using model::parseComputeSpec;
using model::scaleComputeTime;

// Resolves throughput: and device: for a run of `model` at `batch` samples per
// worker (device: reads the profile, device_profile.h); other kinds are
// returned unchanged. Throws InvalidArgument.
ComputeSpec resolveComputeModel(ComputeSpec spec, const std::string& model, int batch);

struct Straggler {
  int rank = 0;
  double factor = 1;
};
// "RANK:FACTOR", FACTOR > 0. Throws InvalidArgument.
Straggler parseStraggler(const std::string& text);

class ComputeTimer {
 public:
  // `slowdown`: this rank's straggler factor (1 when none).
  ComputeTimer(const ComputeSpec& spec, double slowdown, double noiseSigma, uint64_t seed,
               int rank);

  // Seconds to charge for one phase of an iteration that took `measured`
  // seconds and `flops` floating-point operations. The fixed model charges
  // its whole per-iteration time on the phase with `chargesFixed`.
  double charge(double measured, double flops, bool chargesFixed);

  // The noise stream's state (checkpoints): text from the standard library's
  // engine and distribution streaming operators.
  std::string saveState() const;
  void loadState(const std::string& state);

 private:
  ComputeSpec spec_;
  double slowdown_;
  double noiseSigma_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_{0.0, 1.0};
};

}  // namespace tetrad::train
