// Piecewise α–β fit (profile_fit.h): per interval a weighted least-squares
// line T = α + m·β (weights 1/T²), segmented by dynamic programming, the
// number of intervals chosen by BIC.
#include "tetrad/model/netprofile/profile_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tetrad/core/error.h"

namespace tetrad::model {
namespace {

constexpr double kMinAlpha = 1e-9;  // 1 ns: a latency factor stays positive
// Relative residual floor of the criterion (an exact fit is not infinitely good).
constexpr double kResidualFloor = 1e-10;

struct Line {
  double alpha = 0;
  double beta = 0;
  double rss = 0;  // Σ ((α + mβ − T)/T)²
};

double relativeRss(std::span<const FitPoint> pts, double alpha, double beta) {
  double rss = 0;
  for (const FitPoint& p : pts) {
    const double r = (alpha + p.bytes * beta - p.seconds) / p.seconds;
    rss += r * r;
  }
  return rss;
}

// Weighted least squares of T = α + mβ with weights 1/T², under β ≥ β0 and
// α ≥ kMinAlpha.
Line fitLine(std::span<const FitPoint> pts, double beta0) {
  double sw = 0, sm = 0, sy = 0, smm = 0, smy = 0;
  for (const FitPoint& p : pts) {
    const double w = 1 / (p.seconds * p.seconds);
    sw += w;
    sm += w * p.bytes;
    sy += w * p.seconds;
    smm += w * p.bytes * p.bytes;
    smy += w * p.bytes * p.seconds;
  }
  Line line;
  const double det = sw * smm - sm * sm;
  if (det > 0 && pts.size() >= 2) {
    line.beta = (sw * smy - sm * sy) / det;
    line.alpha = (sy - line.beta * sm) / sw;
  } else {
    line.beta = beta0;
    line.alpha = (sy - beta0 * sm) / sw;
  }
  if (line.beta < beta0) {  // faster than the link: SimGrid caps the flow there
    line.beta = beta0;
    line.alpha = (sy - beta0 * sm) / sw;
  }
  if (line.alpha < kMinAlpha) {
    line.alpha = kMinAlpha;
    line.beta = std::max(beta0, smm > 0 ? (smy - kMinAlpha * sm) / smm : beta0);
  }
  line.rss = relativeRss(pts, line.alpha, line.beta);
  return line;
}

void checkPoints(std::span<const FitPoint> points, const FitOptions& options) {
  TETRAD_CHECK(std::isfinite(options.nominalLatency) && options.nominalLatency > 0, InvalidArgument,
               "network fit: the nominal latency must be positive, got {}", options.nominalLatency);
  TETRAD_CHECK(std::isfinite(options.nominalBandwidth) && options.nominalBandwidth > 0,
               InvalidArgument, "network fit: the nominal bandwidth must be positive, got {}",
               options.nominalBandwidth);
  TETRAD_CHECK(points.size() >= 2, InvalidArgument,
               "network fit: needs measurements at 2 or more message sizes, got {}", points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const FitPoint& p = points[i];
    TETRAD_CHECK(std::isfinite(p.bytes) && p.bytes > 0, InvalidArgument,
                 "network fit: point {} has message size {} (must be a positive number)", i,
                 p.bytes);
    TETRAD_CHECK(std::isfinite(p.seconds) && p.seconds > 0, InvalidArgument,
                 "network fit: point {} ({} bytes) has time {} (must be a positive number)", i,
                 p.bytes, p.seconds);
    TETRAD_CHECK(i == 0 || p.bytes > points[i - 1].bytes, InvalidArgument,
                 "network fit: message sizes must strictly increase, but {} bytes follows {} bytes",
                 p.bytes, points[i - 1].bytes);
  }
}

}  // namespace

PiecewiseFit fitPiecewise(std::span<const FitPoint> points, const FitOptions& options) {
  checkPoints(points, options);
  const double beta0 = 1 / options.nominalBandwidth;
  const int n = static_cast<int>(points.size());
  const int minPoints = std::max(2, std::min(options.minPoints, n));
  const int maxK = std::max(1, std::min(options.maxIntervals, n / minPoints));

  // line[i][j]: the fit of points i..j (inclusive), for j - i + 1 >= minPoints.
  std::vector<std::vector<Line>> line(n, std::vector<Line>(n));
  for (int i = 0; i < n; ++i)
    for (int j = i + minPoints - 1; j < n; ++j)
      line[i][j] = fitLine(points.subspan(i, j - i + 1), beta0);

  // best[k][j]: least RSS of points 0..j in k+1 intervals; from[k][j]: start of the last.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(maxK, std::vector<double>(n, kInf));
  std::vector<std::vector<int>> from(maxK, std::vector<int>(n, 0));
  for (int j = minPoints - 1; j < n; ++j) best[0][j] = line[0][j].rss;
  for (int k = 1; k < maxK; ++k) {
    for (int j = (k + 1) * minPoints - 1; j < n; ++j) {
      for (int s = k * minPoints; s + minPoints - 1 <= j; ++s) {
        const double rss = best[k - 1][s - 1] + line[s][j].rss;
        if (rss < best[k][j]) {
          best[k][j] = rss;
          from[k][j] = s;
        }
      }
    }
  }
  int chosen = 0;
  double bestCriterion = kInf;
  for (int k = 0; k < maxK; ++k) {
    if (!std::isfinite(best[k][n - 1])) continue;
    const double criterion = n * std::log(best[k][n - 1] / n + kResidualFloor) +
                             (3.0 * (k + 1) - 1) * std::log(static_cast<double>(n));
    if (criterion < bestCriterion) {
      bestCriterion = criterion;
      chosen = k;
    }
  }

  std::vector<int> starts;
  for (int k = chosen, j = n - 1; k >= 0; --k) {
    const int s = k == 0 ? 0 : from[k][j];
    starts.push_back(s);
    j = s - 1;
  }
  std::reverse(starts.begin(), starts.end());

  PiecewiseFit fit;
  for (size_t k = 0; k < starts.size(); ++k) {
    const int s = starts[k];
    const int e = k + 1 < starts.size() ? starts[k + 1] - 1 : n - 1;
    const Line& l = line[s][e];
    FitInterval interval;
    interval.fromBytes = s == 0 ? 0 : static_cast<uint64_t>(points[s - 1].bytes);
    interval.first = static_cast<size_t>(s);
    interval.last = static_cast<size_t>(e);
    interval.alpha = l.alpha;
    interval.beta = l.beta;
    interval.latencyFactor = l.alpha / options.nominalLatency;
    interval.bandwidthFactor = beta0 / l.beta;
    fit.intervals.push_back(interval);
  }
  double sumSquares = 0;
  for (const FitPoint& p : points) {
    const double predicted = predictMessage(fit.intervals, p.bytes, options);
    const double error = predicted / p.seconds - 1;
    fit.fitted.push_back(predicted);
    fit.relativeErrors.push_back(error);
    sumSquares += error * error;
    fit.maxRelativeError = std::max(fit.maxRelativeError, std::abs(error));
  }
  fit.rmsRelativeError = std::sqrt(sumSquares / n);
  return fit;
}

double predictMessage(const std::vector<FitInterval>& intervals, double bytes,
                      const FitOptions& options) {
  if (intervals.empty()) return options.nominalLatency + bytes / options.nominalBandwidth;
  const FitInterval* chosen = &intervals.front();
  for (const FitInterval& interval : intervals) {
    if (bytes <= static_cast<double>(interval.fromBytes)) break;
    chosen = &interval;
  }
  return options.nominalLatency * chosen->latencyFactor +
         bytes / (options.nominalBandwidth * chosen->bandwidthFactor);
}

}  // namespace tetrad::model
