// Crossing times: when a run's test accuracy first reached a target, read
// from its evaluations (metrics.jsonl) between the evaluation grid's points.
//
// A run evaluates every few iterations, so "the first evaluation at or above
// the target" is late by up to one evaluation interval, and two methods
// within one interval look equal or apart by chance. crossingTime()
// interpolates linearly, in time, between the last evaluation below the
// target and the first at or above it — the crossing of the straight line
// between the two, which is as right as the curve is straight there.
// A curve whose first evaluation already reaches the target has nothing to
// interpolate from: that evaluation's time (an upper bound). Never reached:
// NaN. A curve dipping below the target again after crossing keeps its first
// crossing (time to target is when it was first reached, as summary.json's).
//
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {

double crossingTime(const std::vector<EvalPoint>& curve, double target);

// The mean over seeds of a quantity and whether every seed has it (finite).
struct SeedValues {
  std::vector<double> values;  // per seed; NaN: never reached
  bool all() const;            // every value finite (and at least one)
  double mean() const;         // NaN unless all()
};

// crossingTime() of each folder's curve (readEvalCurve), in folder order.
SeedValues crossingTimes(const std::vector<std::string>& folders, double target);

}  // namespace tetrad::experiment
