// Piecewise α–β fit of measured message times: the curve T(m) of a message
// of m bytes is cut into intervals of message size, and in each interval
// T(m) = α + m·β is fitted. This is SimGrid's calibration procedure for
// network/latency-factor and network/bandwidth-factor (SMPI's ping-pong
// fit): relative to a nominal link (α0, β0 = 1/bandwidth), an interval's
// latency factor is α/α0 and its bandwidth factor β0/β.
//
// Cost: per interval a weighted least-squares line, weights 1/T² (relative
// errors, since times span six orders of magnitude). Intervals: the optimal
// segmentation into K intervals of at least minPoints consecutive sizes (dynamic
// programming, O(K·n²) lines), K from 1 to maxIntervals chosen by the Bayesian
// information criterion n·ln(RSS/n) + (3K−1)·ln(n). A breakpoint falls
// between two measured sizes: the interval after it starts above the last
// size of the one before (SimGrid's "sizes > T" rule), so a true breakpoint B
// is recovered as the measured size T with T < B ≤ the next measured size.
//
// Constraints: SimGrid cannot make a flow faster than its link, so β ≥ β0
// (bandwidth factor ≤ 1); then α is refitted with β = β0. α ≥ 1 ns (latency
// factor > 0).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tetrad::model {

struct FitPoint {
  double bytes = 0;    // message size
  double seconds = 0;  // measured time of one message (a median)
};

struct FitOptions {
  double nominalLatency = 0;    // α0, seconds (> 0)
  double nominalBandwidth = 0;  // 1/β0, bytes per second (> 0)
  int maxIntervals = 6;
  int minPoints = 4;  // per interval (fewer when fewer sizes were measured)
};

struct FitInterval {
  uint64_t fromBytes = 0;  // covers sizes > fromBytes (the first also 0)
  size_t first = 0;        // index of its first point
  size_t last = 0;         // index of its last point
  double alpha = 0;        // seconds
  double beta = 0;         // seconds per byte
  double latencyFactor = 1;
  double bandwidthFactor = 1;
};

struct PiecewiseFit {
  std::vector<FitInterval> intervals;
  std::vector<double> fitted;          // per point, seconds
  std::vector<double> relativeErrors;  // per point: fitted / measured − 1
  double rmsRelativeError = 0;
  double maxRelativeError = 0;
};

// Throws InvalidArgument (one line naming the problem) for fewer than 2
// points, sizes that do not strictly increase, a non-finite or non-positive
// size or time, or a non-positive nominal link.
PiecewiseFit fitPiecewise(std::span<const FitPoint> points, const FitOptions& options);

// The time of one message of `bytes` under `fit`'s intervals on the nominal
// link: α0·latencyFactor + bytes·β0/bandwidthFactor.
double predictMessage(const std::vector<FitInterval>& intervals, double bytes,
                      const FitOptions& options);

}  // namespace tetrad::model
