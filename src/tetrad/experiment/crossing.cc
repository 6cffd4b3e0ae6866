// Crossing times between evaluations (crossing.h).
#include "tetrad/experiment/crossing.h"

#include <cmath>
#include <limits>

namespace tetrad::experiment {

double crossingTime(const std::vector<EvalPoint>& curve, double target) {
  for (size_t i = 0; i < curve.size(); ++i) {
    if (!(curve[i].accuracy >= target)) continue;
    if (i == 0) return curve[0].time;
    const EvalPoint& below = curve[i - 1];
    const EvalPoint& above = curve[i];
    const double rise = above.accuracy - below.accuracy;
    if (!(rise > 0)) return above.time;
    return below.time + (target - below.accuracy) / rise * (above.time - below.time);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

bool SeedValues::all() const {
  if (values.empty()) return false;
  for (double v : values) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

double SeedValues::mean() const {
  if (!all()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (double v : values) sum += v;
  return sum / double(values.size());
}

SeedValues crossingTimes(const std::vector<std::string>& folders, double target) {
  SeedValues times;
  for (const std::string& folder : folders) {
    times.values.push_back(crossingTime(readEvalCurve(folder), target));
  }
  return times;
}

}  // namespace tetrad::experiment
