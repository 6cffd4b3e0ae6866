// Crossing times interpolated between evaluations (experiment/crossing.h).
#include "tetrad/experiment/crossing.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tetrad::experiment {
namespace {

EvalPoint at(double time, double accuracy) {
  EvalPoint p;
  p.time = time;
  p.accuracy = accuracy;
  return p;
}

TEST(Crossing, InterpolatesBetweenTheEvaluationsAroundTheTarget) {
  const std::vector<EvalPoint> curve = {at(1, 0.5), at(2, 0.7), at(3, 0.9), at(4, 0.8)};
  // 0.8 lies halfway between 0.7 (2 s) and 0.9 (3 s).
  EXPECT_DOUBLE_EQ(crossingTime(curve, 0.8), 2.5);
  EXPECT_DOUBLE_EQ(crossingTime(curve, 0.9), 3.0);  // reached exactly at an evaluation
  EXPECT_DOUBLE_EQ(crossingTime(curve, 0.4), 1.0);  // the first evaluation: nothing before it
  EXPECT_TRUE(std::isnan(crossingTime(curve, 0.95)));
  EXPECT_TRUE(std::isnan(crossingTime({}, 0.5)));
  // The first crossing counts, not a later one after a dip.
  const std::vector<EvalPoint> dip = {at(1, 0.5), at(2, 0.9), at(3, 0.6), at(4, 0.95)};
  EXPECT_DOUBLE_EQ(crossingTime(dip, 0.7), 1.5);
  // A flat step onto the target (no rise): the evaluation that reached it.
  EXPECT_DOUBLE_EQ(crossingTime({at(1, 0.8), at(2, 0.8)}, 0.8), 1.0);
}

TEST(Crossing, SeedValuesAreCompleteOnlyWhenEverySeedCrossed) {
  EXPECT_DOUBLE_EQ((SeedValues{{1, 2, 3}}).mean(), 2);
  EXPECT_TRUE((SeedValues{{1, 2}}).all());
  EXPECT_FALSE((SeedValues{{1, NAN}}).all());
  EXPECT_TRUE(std::isnan((SeedValues{{1, NAN}}).mean()));
  EXPECT_FALSE(SeedValues{}.all());
}

}  // namespace
}  // namespace tetrad::experiment
