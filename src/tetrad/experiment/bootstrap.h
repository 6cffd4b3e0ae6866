// Bootstrap confidence intervals over seeds: how sure a speed-up is when each
// side was measured on a few seeds.
//
// ratioOfMeansInterval(base, method) resamples each side's values with
// replacement (independently: the seeds of two methods are not paired),
// takes mean(base) / mean(method) of every resample, and returns the 2.5th
// and 97.5th percentiles of those ratios (the percentile bootstrap, Efron &
// Tibshirani 1993, ch. 13). The generator is seeded, so a report prints the
// same interval every time. With fewer than two values on either side there
// is no spread to resample: the interval is missing (NaN).
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <span>

namespace tetrad::experiment {

struct Interval {
  double low = 0, high = 0;  // NaN both when missing
  bool missing() const;
  // True when every value of `other` lies outside this interval (and
  // neither is missing): the two differ at this level.
  bool excludes(const Interval& other) const;
};

inline constexpr int kBootstrapResamples = 2000;

// 95% interval of mean(base) / mean(method); every value must be > 0.
Interval ratioOfMeansInterval(std::span<const double> base, std::span<const double> method,
                              int resamples = kBootstrapResamples, uint64_t seed = 1);

}  // namespace tetrad::experiment
