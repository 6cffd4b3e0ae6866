// Piecewise α–β fit (model/netprofile/profile_fit.h) on synthetic
// measurements from a known piecewise curve with seeded noise, and the
// refusal of degenerate input.
#include "tetrad/model/netprofile/profile_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tetrad/core/error.h"

namespace tetrad::model {
namespace {

// The nominal link of the synthetic network: 200 Mbit/s, 20 us.
FitOptions nominal() {
  FitOptions options;
  options.nominalLatency = 20e-6;
  options.nominalBandwidth = 25e6;
  return options;
}

struct TruePiece {
  double upTo;  // sizes <= upTo (the last: infinity)
  double latencyFactor;
  double bandwidthFactor;
};

// 8 B .. 64 MiB in steps of 2, times from the true curve × (1 + noise).
std::vector<FitPoint> synthetic(const std::vector<TruePiece>& curve, double noise, uint32_t seed) {
  const FitOptions n = nominal();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jitter(-noise, noise);
  std::vector<FitPoint> points;
  for (double m = 8; m <= 64.0 * 1024 * 1024; m *= 2) {
    const TruePiece* piece = &curve.back();
    for (const TruePiece& p : curve) {
      if (m <= p.upTo) {
        piece = &p;
        break;
      }
    }
    const double t =
        n.nominalLatency * piece->latencyFactor + m / (n.nominalBandwidth * piece->bandwidthFactor);
    points.push_back({m, t * (1 + jitter(rng))});
  }
  return points;
}

const std::vector<TruePiece> kCurve = {{4096, 3.0, 1.0},    // small: latency 60 us, full rate
                                       {262144, 6.0, 0.8},  // eager-limit jump: latency 120 us, 80%
                                       {INFINITY, 25.0, 0.75}};  // rendezvous: latency 500 us, 75%

TEST(modelProfileFit, ExactCurveIsRecoveredExactly) {
  const PiecewiseFit fit = fitPiecewise(synthetic(kCurve, 0, 1), nominal());
  ASSERT_EQ(fit.intervals.size(), 3u);
  EXPECT_EQ(fit.intervals[0].fromBytes, 0u);
  EXPECT_EQ(fit.intervals[1].fromBytes, 4096u);
  EXPECT_EQ(fit.intervals[2].fromBytes, 262144u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(fit.intervals[k].latencyFactor, kCurve[k].latencyFactor,
                1e-6 * kCurve[k].latencyFactor);
    EXPECT_NEAR(fit.intervals[k].bandwidthFactor, kCurve[k].bandwidthFactor, 1e-6);
  }
  EXPECT_LT(fit.maxRelativeError, 1e-9);
}

// Tolerances with ±3% uniform noise (stated in docs/fidelity.md): breakpoints
// exact (they lie on measured sizes), every fitted point within 6% of its
// measurement, and a factor within 15% wherever its term is at least a fifth
// of the time somewhere in its interval (elsewhere the noise hides it: a
// 500 us latency under 27 ms of transfer at 512 KiB is not measurable).
TEST(modelProfileFit, NoisyCurveRecoversBreakpointsAndFactors) {
  const FitOptions n = nominal();
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    const std::vector<FitPoint> points = synthetic(kCurve, 0.03, seed);
    const PiecewiseFit fit = fitPiecewise(points, n);
    ASSERT_EQ(fit.intervals.size(), 3u) << "seed " << seed;
    EXPECT_EQ(fit.intervals[1].fromBytes, 4096u) << "seed " << seed;
    EXPECT_EQ(fit.intervals[2].fromBytes, 262144u) << "seed " << seed;
    for (size_t k = 0; k < 3; ++k) {
      const FitInterval& i = fit.intervals[k];
      const double latency = n.nominalLatency * kCurve[k].latencyFactor;
      const double smallest = points[i.first].bytes, largest = points[i.last].bytes;
      const double rate = n.nominalBandwidth * kCurve[k].bandwidthFactor;
      if (latency >= 0.2 * (latency + smallest / rate)) {
        EXPECT_NEAR(i.latencyFactor / kCurve[k].latencyFactor, 1, 0.15)
            << "seed " << seed << " interval " << k;
      }
      if (largest / rate >= 0.2 * (latency + largest / rate)) {
        EXPECT_NEAR(i.bandwidthFactor / kCurve[k].bandwidthFactor, 1, 0.15)
            << "seed " << seed << " interval " << k;
      }
    }
    EXPECT_LT(fit.maxRelativeError, 0.06) << "seed " << seed;
  }
}

// A breakpoint between two measured sizes is found at the last size below it.
TEST(modelProfileFit, BreakpointBetweenSizesIsTheSizeBelowIt) {
  const std::vector<TruePiece> curve = {{6000, 2.0, 1.0}, {INFINITY, 10.0, 0.5}};
  const PiecewiseFit fit = fitPiecewise(synthetic(curve, 0.01, 7), nominal());
  ASSERT_EQ(fit.intervals.size(), 2u);
  EXPECT_EQ(fit.intervals[1].fromBytes, 4096u);  // 4096 < 6000 <= 8192
}

// A straight α–β line is one interval: the criterion does not split noise.
TEST(modelProfileFit, StraightLineIsOneInterval) {
  const PiecewiseFit fit = fitPiecewise(synthetic({{INFINITY, 1.5, 0.9}}, 0.02, 3), nominal());
  ASSERT_EQ(fit.intervals.size(), 1u);
  EXPECT_NEAR(fit.intervals[0].latencyFactor, 1.5, 0.15);
  EXPECT_NEAR(fit.intervals[0].bandwidthFactor, 0.9, 0.05);
}

// Faster than the nominal link: the bandwidth factor is capped at 1 (SimGrid
// cannot make a flow faster than its link) and α absorbs the rest.
TEST(modelProfileFit, BandwidthFactorIsCappedAtOne) {
  const PiecewiseFit fit = fitPiecewise(synthetic({{INFINITY, 2.0, 1.5}}, 0, 1), nominal());
  for (const FitInterval& i : fit.intervals) {
    EXPECT_LE(i.bandwidthFactor, 1.0);
    EXPECT_GT(i.latencyFactor, 0.0);
  }
}

TEST(modelProfileFit, PredictMessageUsesTheIntervalAboveEachThreshold) {
  const FitOptions n = nominal();
  std::vector<FitInterval> intervals(2);
  intervals[0].fromBytes = 0;
  intervals[0].latencyFactor = 1;
  intervals[1].fromBytes = 1000;
  intervals[1].latencyFactor = 2;
  intervals[1].bandwidthFactor = 0.5;
  EXPECT_DOUBLE_EQ(predictMessage(intervals, 1000, n), 20e-6 + 1000 / 25e6);
  EXPECT_DOUBLE_EQ(predictMessage(intervals, 1001, n), 40e-6 + 1001 / 12.5e6);
  EXPECT_DOUBLE_EQ(predictMessage(intervals, 0, n), 20e-6);
}

std::string fitError(const std::vector<FitPoint>& points, FitOptions options = nominal()) {
  try {
    fitPiecewise(points, options);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(modelProfileFit, DegenerateInputIsRefused) {
  EXPECT_NE(fitError({{1024, 1e-4}}).find("2 or more message sizes, got 1"), std::string::npos);
  EXPECT_NE(fitError({}).find("got 0"), std::string::npos);
  EXPECT_NE(fitError({{1024, 1e-4}, {512, 2e-4}, {4096, 3e-4}})
                .find("sizes must strictly increase, but 512 bytes follows 1024 bytes"),
            std::string::npos);
  EXPECT_NE(fitError({{1024, 1e-4}, {1024, 2e-4}}).find("strictly increase"), std::string::npos);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(fitError({{1024, 1e-4}, {2048, nan}}).find("has time nan"), std::string::npos);
  EXPECT_NE(fitError({{nan, 1e-4}, {2048, 1e-4}}).find("message size nan"), std::string::npos);
  EXPECT_NE(fitError({{1024, -1e-4}, {2048, 1e-4}}).find("must be a positive number"),
            std::string::npos);
  FitOptions noLink = nominal();
  noLink.nominalBandwidth = 0;
  EXPECT_NE(fitError({{1024, 1e-4}, {2048, 2e-4}}, noLink).find("nominal bandwidth"),
            std::string::npos);
}

}  // namespace
}  // namespace tetrad::model
