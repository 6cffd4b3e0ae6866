#include "tetrad/experiment/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace tetrad::experiment {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double resampledMean(std::span<const double> values, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  double sum = 0;
  for (size_t i = 0; i < values.size(); ++i) sum += values[pick(rng)];
  return sum / double(values.size());
}

bool usable(std::span<const double> values) {
  return values.size() >= 2 && std::all_of(values.begin(), values.end(),
                                           [](double v) { return std::isfinite(v) && v > 0; });
}

}  // namespace

bool Interval::missing() const {
  return std::isnan(low) || std::isnan(high);
}

bool Interval::excludes(const Interval& other) const {
  return !missing() && !other.missing() && (other.high < low || other.low > high);
}

Interval ratioOfMeansInterval(std::span<const double> base, std::span<const double> method,
                              int resamples, uint64_t seed) {
  if (!usable(base) || !usable(method) || resamples < 2) return {kNaN, kNaN};
  std::mt19937_64 rng(seed);
  std::vector<double> ratios(size_t(resamples), 0.0);
  for (double& ratio : ratios) ratio = resampledMean(base, rng) / resampledMean(method, rng);
  std::sort(ratios.begin(), ratios.end());
  // Percentile positions, the lower and upper 2.5% cut (nearest rank).
  const auto at = [&](double q) {
    const auto index =
        size_t(std::clamp(std::ceil(q * double(resamples)) - 1.0, 0.0, double(resamples - 1)));
    return ratios[index];
  };
  return {at(0.025), at(0.975)};
}

}  // namespace tetrad::experiment
