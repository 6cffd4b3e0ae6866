// A least-squares fit of s on log multipliers (noise_ratio_fit.h).
#include "tetrad/model/noise_ratio_fit.h"

#include <cmath>
#include <limits>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/model/method_traits.h"

namespace tetrad::model {
namespace {

constexpr double kMinLog10 = -3, kMaxLog10 = 6;

// The points whose multiplier depends on s: covered, not exact, measured.
bool usable(const MeasuredMultiplier& m) {
  if (!(m.multiplier > 0) || !std::isfinite(m.multiplier) || m.workers < 1) return false;
  const MethodTraits traits = methodTraits(m.method);
  const bool deviatesInSync = !traits.synchronous || traits.mixesModels;
  return deviatesInSync || !(traits.uncompressed || traits.halfPrecision);
}

}  // namespace

double rmsLogError(const std::vector<MeasuredMultiplier>& measured, double s,
                   const CompressionErrorFunction& error) {
  double sum = 0;
  int count = 0;
  for (const MeasuredMultiplier& m : measured) {
    if (!usable(m)) continue;
    const IterationEstimate e = predictIterations(m.method, m.workers, s, m.momentum, error);
    if (!e.covered || !(e.multiplier > 0)) continue;
    const double d = std::log(e.multiplier) - std::log(m.multiplier);
    sum += d * d;
    ++count;
  }
  return count == 0 ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(sum / count);
}

NoiseRatioFit fitNoiseRatio(const std::vector<MeasuredMultiplier>& measured,
                            const CompressionErrorFunction& error) {
  NoiseRatioFit fit;
  for (const MeasuredMultiplier& m : measured) {
    if (usable(m) && predictIterations(m.method, m.workers, 1, m.momentum, error).covered)
      ++fit.points;
  }
  TETRAD_CHECK(fit.points > 0, InvalidArgument,
               "--noise-ratio fit: no method with a theory and a measured multiplier to fit "
               "(the sweep needs BSP and at least one other synchronous method that reached the "
               "target)");
  auto cost = [&](double log10s) { return rmsLogError(measured, std::pow(10, log10s), error); };
  // A grid of 10 points per decade, then golden-section search around the best.
  double best = kMinLog10, bestCost = cost(best);
  for (double x = kMinLog10 + 0.1; x <= kMaxLog10 + 1e-9; x += 0.1) {
    const double c = cost(x);
    if (c < bestCost) best = x, bestCost = c;
  }
  double lo = std::max(kMinLog10, best - 0.1), hi = std::min(kMaxLog10, best + 0.1);
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 40; ++i) {
    const double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
    if (cost(a) < cost(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  const double x = (lo + hi) / 2;
  fit.noiseRatio = cost(x) <= bestCost ? std::pow(10, x) : std::pow(10, best);
  fit.rmsLogError = cost(std::log10(fit.noiseRatio));
  fit.rmsLogErrorAtOne = rmsLogError(measured, kUnitNoiseRatio, error);
  return fit;
}

}  // namespace tetrad::model
