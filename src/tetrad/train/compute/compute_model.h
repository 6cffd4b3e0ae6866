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

namespace tetrad::train {

struct ComputeSpec {
  enum class Kind { kMeasured, kFixed, kFlops } kind = Kind::kMeasured;
  double scale = 1;    // measured only
  double seconds = 0;  // fixed only
  double gflops = 0;   // flops only
  // throughput:S (and a device profile's published throughput): samples per
  // second of one device; `seconds` is batch / S once resolved.
  double samplesPerSecond = 0;
  // device:NAME|FILE: the profile's name or path as given (empty otherwise).
  std::string device;
  std::string toString() const;
};

// Throws InvalidArgument naming the rule. throughput:S gives kind kFixed
// with samplesPerSecond = S and seconds 0 until resolveComputeModel();
// device: gives kind kFixed with `device` set, resolved there too.
ComputeSpec parseComputeSpec(const std::string& text);

// The same compute model with its time per iteration multiplied by `factor`
// (> 0, finite): a duration multiplies, a rate (throughput:, flops:) divides.
// measured and device: have no rate to scale: InvalidArgument.
ComputeSpec scaleComputeTime(ComputeSpec spec, double factor);

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
