// Iteration theory: a method's predicted iterations to a target over BSP's —
// the iteration multiplier of docs/convergence.md — with the paper and
// theorem it comes from, for `tetrad advise`'s time to target
// (= time per iteration × multiplier).
//
// Every bound is written as T = (LΔ/ε)·F with the theorems' numerical
// constants dropped, s = σ²/(n·ε) the noise ratio (the advisor's
// --noise-ratio, default 1) and n the workers; the multiplier is
// F_method / F_BSP, F_BSP = 1 + s (Ghadimi & Lan 2013, Cor. 2.2):
//
//   unbiased, variance ω      (1 + ω/n) + (1 + ω)·s            Khaled & Richtárik 2020, Cor. 1
//   δ-contractive + EF        s + √((1 − δ)·n·s)/δ + 1/δ       Stich & Karimireddy 2020
//   consensus distance κ      s + √(n·s·κ) + 1 + κ             Koloskova et al. 2020, Thm 2
//     Local SGD H: κ = H − 1;  D-PSGD: κ = (1/n)Σλᵢ²/(1 − λᵢ²) over W's spectrum
//     (consensusVariance; <= 1/p − 1, p = 1 − λ₂², the gap's bound, used where
//     there is no spectrum: time-varying or > 256 ranks)
//   staleness τ (per worker)  s + (1 + τ)/n                    Lian et al. 2015, Stich & K. 2020
//     asp: τ = n − 1 (no stragglers);  ssp:S: τ = (S + 1)(n − 1)
//     momentum SGD: not covered (below)
//   accumulation accum:K      K·(s/K + 1) = s + K               Ghadimi & Lan 2013, Cor. 2.2
//     (mini-batch SGD with a K times larger batch, counted in micro-batches)
//
// fp16/bf16 (rounding only) and none are BSP (multiplier 1). Not covered
// (multiplier NaN, covered = false): signSGD's majority vote (its bounds are
// on the ℓ1 norm), biased compressors without error feedback, and SSP/ASP
// when the workers use momentum (momentum > 0): the staleness bounds are for
// plain SGD, and asynchrony adds an implicit momentum of its own (Mitliagkas
// et al. 2016, "Asynchrony begets momentum") that changes the optimiser's
// effective momentum — a first-order change no lower-order τ term prices
// (measured in the survey: PS-ASP 1.37× BSP's iterations on the MLP, and
// never at 85% on the cnn, where τ = n − 1 predicts 1×). Synchronous
// methods apply momentum to the same averaged updates as BSP, so their
// ratios to BSP are kept. gTop-k is
// error feedback with its local selection's δ standing in for the global
// selection's (Shi et al. 2019 assume the global one contracts alike).
// A method that deviates from BSP in two dimensions (compression and sync or
// gossip) gets the product of the two multipliers, said so in its text.
//
// ω and δ come from the caller (a CompressionErrorFunction: measured with
// compression_error.h, or a fixture's value in tests), so this file does no
// measuring. Pure functions; thread-safe.
#pragma once

#include <functional>
#include <string>

#include "tetrad/compress/compressor.h"
#include "tetrad/model/method_cost.h"

namespace tetrad::model {

// s = 1: the deterministic and the noise terms of a bound weigh alike (the
// reference the fit of s is compared with, noise_ratio_fit.h).
inline constexpr double kUnitNoiseRatio = 1.0;
// The advisor's default s: fitted to the shipped survey sweep
// (configs/survey.toml: MLP on Fashion-MNIST, 8 workers, 11 methods with a
// theory; docs/convergence.md, "Fitting s"), the only measurement of s
// tetrad ships. kDefaultNoiseRatioSource says so in the advisor's output.
inline constexpr double kDefaultNoiseRatio = 143.4;
inline constexpr const char* kDefaultNoiseRatioSource =
    "fitted to the survey sweep configs/survey.toml, docs/convergence.md";
// tetrad train's --momentum default (train_config.h takes it from here), for
// runs and advice that do not say.
inline constexpr double kDefaultMomentum = 0.9;

// The formulas above (n >= 1, s >= 0; ω >= 0; δ in (0, 1]; κ, τ >= 0).
double bspFactor(double s);
double unbiasedMultiplier(double omega, int n, double s);
double errorFeedbackMultiplier(double delta, int n, double s);
double consensusMultiplier(double kappa, int n, double s);
double stalenessMultiplier(double tau, int n, double s);
double accumulationMultiplier(int64_t microBatches, double s);
// p = 1 − λ² of a mixing matrix whose second largest eigenvalue modulus is λ.
double gossipConsensusRate(double contraction);

// How a compressor enters the theory: what it declares (Compressor::theory()).
enum class CompressorTheory {
  kExact,          // none, fp16, bf16: BSP
  kUnbiased,       // ω: Compressor::unbiased()
  kErrorFeedback,  // δ: ",ef", or built-in EF (onebit, efsign, powersgd, dgc, gtopk)
  kNotCovered,     // sign (majority vote), biased without EF
};
CompressorTheory compressorTheory(const Compressor& compressor);

// Σ‖C(x) − x‖² / Σ‖x‖² of a compressor (compression_error.h).
using CompressionErrorFunction = std::function<double(const Compressor&)>;

struct IterationEstimate {
  double multiplier = 1;  // NaN when !covered
  bool covered = true;
  // "unbiased ω = 2.61 (measured), n = 8, s = 1: ((1 + ω/n) + (1 + ω)s)/(1 + s);
  //  Khaled & Richtárik 2020, Cor. 1" or "no theory: ...".
  std::string text;
};

// The multiplier of `method` (canonical or not) on `workers` workers whose
// optimiser uses `momentum` (0 for plain SGD; tetrad train's default is
// 0.9). Throws InvalidArgument for specs that do not parse, or a momentum
// outside [0, 1).
IterationEstimate predictIterations(const Method& method, int workers, double noiseRatio,
                                    double momentum, const CompressionErrorFunction& error);

}  // namespace tetrad::model
