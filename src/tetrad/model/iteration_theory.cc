// Iteration multipliers from the convergence bounds (iteration_theory.h,
// docs/convergence.md).
#include "tetrad/model/iteration_theory.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>

#include "tetrad/arch/gossip/spectral.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/arch/registry.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/spec.h"
#include "tetrad/core/units.h"
#include "tetrad/sync/registry.h"

namespace tetrad::model {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void checkCommon(int n, double s) {
  TETRAD_CHECK(n >= 1, InvalidArgument, "iteration theory: workers must be >= 1, got {}", n);
  TETRAD_CHECK(s >= 0 && std::isfinite(s), InvalidArgument,
               "--noise-ratio must be a finite number >= 0, got {}", s);
}

std::string context(int n, double s) {
  return fmt::format("n = {}, s = {:g}", n, s);
}

IterationEstimate notCovered(const std::string& why) {
  return {kNaN, false, "no theory: " + why};
}

// The compression part of a method: its multiplier and text.
IterationEstimate compressionPart(const Compressor& compressor, int n, double s,
                                  const CompressionErrorFunction& error) {
  const std::string note = compressor.theoryNote();
  switch (compressorTheory(compressor)) {
    case CompressorTheory::kExact:
      return {1, true,
              compressor.isIdentity() ? "BSP: 1; Ghadimi & Lan 2013, Cor. 2.2"
                                      : "rounding only, as BSP: 1; Ghadimi & Lan 2013, Cor. 2.2"};
    case CompressorTheory::kUnbiased: {
      const double omega = error(compressor);
      return {unbiasedMultiplier(omega, n, s), true,
              fmt::format("unbiased ω = {:.5g}, {}: ((1 + ω/n) + (1 + ω)s)/(1 + s); Khaled & "
                          "Richtárik 2020, Cor. 1",
                          omega, context(n, s))};
    }
    case CompressorTheory::kErrorFeedback: {
      const double delta = 1 - error(compressor);
      if (!(delta > 0)) {
        return notCovered(fmt::format("not contractive (‖C(x) − x‖² ≥ ‖x‖², δ = {:.3g})", delta));
      }
      // A caveat the compressor declares (gTop-k: δ is the local selection's).
      const std::string proxy = note.empty() ? "" : " (" + note + ")";
      return {errorFeedbackMultiplier(delta, n, s), true,
              fmt::format("error feedback δ = {:.5g}{}, {}: (s + √((1 − δ)ns)/δ + 1/δ)/(1 + s); "
                          "Stich & Karimireddy 2020",
                          delta, proxy, context(n, s))};
    }
    case CompressorTheory::kNotCovered:
      break;
  }
  if (!note.empty()) return notCovered(note);
  return notCovered("biased compression without error feedback");
}

}  // namespace

double bspFactor(double s) {
  return 1 + s;
}

double unbiasedMultiplier(double omega, int n, double s) {
  checkCommon(n, s);
  TETRAD_CHECK(omega >= 0, InvalidArgument, "ω must be >= 0, got {}", omega);
  return ((1 + omega / n) + (1 + omega) * s) / bspFactor(s);
}

double errorFeedbackMultiplier(double delta, int n, double s) {
  checkCommon(n, s);
  TETRAD_CHECK(delta > 0 && delta <= 1, InvalidArgument, "δ must be in (0, 1], got {}", delta);
  return (s + std::sqrt((1 - delta) * n * s) / delta + 1 / delta) / bspFactor(s);
}

double consensusMultiplier(double kappa, int n, double s) {
  checkCommon(n, s);
  TETRAD_CHECK(kappa >= 0, InvalidArgument, "κ must be >= 0, got {}", kappa);
  return (s + std::sqrt(n * s * kappa) + 1 + kappa) / bspFactor(s);
}

double stalenessMultiplier(double tau, int n, double s) {
  checkCommon(n, s);
  TETRAD_CHECK(tau >= 0, InvalidArgument, "τ must be >= 0, got {}", tau);
  return (s + (1 + tau) / n) / bspFactor(s);
}

double gossipConsensusRate(double contraction) {
  return 1 - contraction * contraction;
}

// The compressor's own declaration (Compressor::theory()).
CompressorTheory compressorTheory(const Compressor& compressor) {
  switch (compressor.theory()) {
    case Compressor::Theory::kExact:
      return CompressorTheory::kExact;
    case Compressor::Theory::kUnbiased:
      return CompressorTheory::kUnbiased;
    case Compressor::Theory::kErrorFeedback:
      return CompressorTheory::kErrorFeedback;
    case Compressor::Theory::kNotCovered:
      break;
  }
  return CompressorTheory::kNotCovered;
}

double accumulationMultiplier(int64_t microBatches, double s) {
  checkCommon(1, s);
  TETRAD_CHECK(microBatches >= 1, InvalidArgument, "K must be >= 1, got {}", microBatches);
  return (s + double(microBatches)) / bspFactor(s);
}

IterationEstimate predictIterations(const Method& method, int n, double s, double momentum,
                                    const CompressionErrorFunction& error) {
  checkCommon(n, s);
  TETRAD_CHECK(momentum >= 0 && momentum < 1, InvalidArgument,
               "iteration theory: momentum must be in [0, 1), got {}", momentum);
  const CompressorPtr compressor = makeCompressor(method.compress);
  const SyncPolicyPtr sync = makeSyncPolicy(method.sync);
  const bool pushPull = sync->mode() == SyncMode::kPushPull;
  const ArchShape arch = describeArch(method.arch);
  IterationEstimate part;  // the sync or gossip part
  if (arch.mixesModels) {
    if (pushPull || sync->averagesModels())
      return notCovered("AD-PSGD and local gossip are not in this theory");
    const std::string& topo = arch.topology;
    const SpectralInfo spectral = spectralGap(parseTopology(topo, n, 1));
    const double lambda = spectral.contraction;
    if (!compressor->isIdentity()) {
      // CHOCO-SGD: consensus rate ρ²δ, ρ = 1 − λ (Koloskova, Stich & Jaggi 2019).
      const double delta = 1 - error(*compressor);
      if (!(delta > 0) || !(lambda < 1)) return notCovered("gossip without a contraction");
      const double p = (1 - lambda) * (1 - lambda) * delta;
      return {consensusMultiplier(1 / p - 1, n, s), true,
              fmt::format("CHOCO-SGD {} λ = {:.5g}, δ = {:.5g}, p = (1 − λ)²δ = {:.5g}, κ = 1/p − "
                          "1, {}: (s + √(nsκ) + 1 + κ)/(1 + s); Koloskova, Stich & Jaggi 2019, "
                          "Thm 2",
                          method.arch, lambda, delta, p, context(n, s))};
    }
    if (!(lambda < 1)) return notCovered(fmt::format("{} does not mix (λ = 1)", method.arch));
    const double p = gossipConsensusRate(lambda);
    // i.i.d. data: the consensus distance is driven by the gradient noise
    // alone, and its stationary value is the whole spectrum's, not the
    // spectral gap's bound on it (arch/gossip/spectral.h; docs/convergence.md).
    const std::optional<double> spectrum = consensusVariance(parseTopology(topo, n, 1));
    if (!spectrum) {
      return {consensusMultiplier(1 / p - 1, n, s), true,
              fmt::format("D-PSGD {} λ = {:.5g}, p = 1 − λ² = {:.5g}, κ = 1/p − 1 (the gap's "
                          "bound: no spectrum for this topology), {}: (s + √(nsκ) + 1 + κ)/(1 + "
                          "s); Koloskova et al. 2020, Thm 2 (Lian et al. 2017)",
                          method.arch, lambda, p, context(n, s))};
    }
    return {consensusMultiplier(*spectrum, n, s), true,
            fmt::format("D-PSGD {} κ = (1/n)Σλᵢ²/(1 − λᵢ²) = {:.5g} (the gap's bound 1/p − 1 = "
                        "{:.4g}, λ = {:.5g}), {}: (s + √(nsκ) + 1 + κ)/(1 + s); Koloskova et al. "
                        "2020, Thm 2 with the spectrum's consensus variance (Vogels et al. 2022; "
                        "Takezawa et al. 2026)",
                        method.arch, *spectrum, 1 / p - 1, lambda, context(n, s))};
  }
  if (sync->averagesModels()) {
    const int64_t h = sync->averagingPeriod();
    part = {consensusMultiplier(double(h - 1), n, s), true,
            fmt::format("Local SGD H = {}, κ = H − 1, {}: (s + √(nsκ) + 1 + κ)/(1 + s); "
                        "Koloskova et al. 2020, Thm 2",
                        h, context(n, s))};
  } else if (const int64_t k = sync->microBatchesPerStep(); k > 1) {
    part = {accumulationMultiplier(k, s), true,
            fmt::format("accumulation K = {} (a K times larger batch, K·(s/K + 1) micro-batches), "
                        "{}: (s + K)/(1 + s); Ghadimi & Lan 2013, Cor. 2.2",
                        k, context(n, s))};
  } else if (pushPull) {
    const int64_t bound = sync->stalenessBound();
    const bool unbounded = bound == kUnboundedStaleness;
    const char* label = unbounded ? "ASP" : "SSP";
    if (momentum > 0) {
      return notCovered(fmt::format(
          "{} with momentum {:g}: the staleness bounds (Lian et al. 2015) are for plain SGD, "
          "and asynchrony adds an implicit momentum of its own (Mitliagkas et al. 2016)",
          label, momentum));
    }
    const double tau = unbounded ? double(n - 1) : double(bound + 1) * double(n - 1);
    part = {
        stalenessMultiplier(tau, n, s), true,
        fmt::format("{} τ = {} ({}), {}: (s + (1 + τ)/n)/(1 + s); Lian et al. 2015, Thm 1", label,
                    tau, unbounded ? "n − 1, no stragglers" : "(S + 1)(n − 1)", context(n, s))};
  } else {
    return compressionPart(*compressor, n, s, error);
  }
  if (compressorTheory(*compressor) == CompressorTheory::kExact) return part;
  const IterationEstimate compression = compressionPart(*compressor, n, s, error);
  if (!compression.covered) return compression;
  return {part.multiplier * compression.multiplier, true,
          fmt::format("product (no joint theorem): {} × {}", part.text, compression.text)};
}

}  // namespace tetrad::model
