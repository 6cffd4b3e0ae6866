// The advisor's baselines on a method map (experiment/map_baselines.h) and
// the agreement's exact and crowded counts (method_map.h).
#include "tetrad/experiment/map_baselines.h"

#include <gtest/gtest.h>

namespace tetrad::experiment {
namespace {

constexpr double kGigabit = 1e9 / 8;

MapEntry entry(const std::string& method, MethodKind kind, double time, double perIteration,
               double iterations) {
  MapEntry e;
  e.method = method;
  e.kind = kind;
  e.timeToTarget = time;
  e.predictedTimePerIteration = perIteration;
  e.predictedIterations = iterations;
  return e;
}

// BSP 10 s; fp16 9.5 s; Top-k + EF 4 s but predicted 3x BSP's iterations;
// Local SGD 12 s.
MapCell cellAt(double gigabits) {
  MapCell cell;
  cell.bandwidth = gigabits * kGigabit;
  cell.entries = {
      entry("bsp allreduce:ring none none", MethodKind::kPlainBsp, 10, 1.0, 100),
      entry("bsp allreduce:ring fp16 none", MethodKind::kHalfPrecision, 9.5, 0.9, 100),
      entry("bsp allreduce:ring topk:0.01,ef none", MethodKind::kErrorFeedback, 4, 0.2, 300),
      entry("local:4 allreduce:ring none none", MethodKind::kModelAveraging, 12, 0.3, 250)};
  return cell;
}

TEST(MapBaselines, ThreeRulesPickByBandwidth) {
  EXPECT_EQ(threeRulePick(cellAt(100)), "bsp allreduce:ring none none");
  EXPECT_EQ(threeRulePick(cellAt(1)), "bsp allreduce:ring fp16 none");
  EXPECT_EQ(threeRulePick(cellAt(0.1)), "bsp allreduce:ring topk:0.01,ef none");
  MapCell noCompressor = cellAt(0.1);
  noCompressor.entries.erase(noCompressor.entries.begin() + 2);
  EXPECT_EQ(threeRulePick(noCompressor), "local:4 allreduce:ring none none");
}

TEST(MapBaselines, UnitMultipliersPickTheFastestIteration) {
  const std::vector<MapCell> cells = withUnitMultipliers({cellAt(1)});
  // 0.2 x 100 beats local's 0.3 x 100 and BSP's 1.0 x 100.
  EXPECT_EQ(advisedOf(cells[0]), "bsp allreduce:ring topk:0.01,ef none");
  // The theory's own advice: topk 0.2 x 300 = 60 beats local's 75 and BSP's 100.
  EXPECT_EQ(advisedOf(cellAt(1)), "bsp allreduce:ring topk:0.01,ef none");
}

TEST(MapAgreement, CountsExactPicksAndCrowdedCells) {
  // Cell 1: the winner (Top-k) advised. Cell 2: BSP advised by the rules,
  // fp16 wins by 5%: agreed within 10% but not exact, and crowded.
  std::vector<MapCell> cells = {cellAt(1), cellAt(1)};
  cells[1].entries.erase(cells[1].entries.begin() + 2);  // no Top-k
  cells[1].entries[0].predictedTimePerIteration = 0.1;   // BSP advised
  const MapAgreement a = countAgreement(cells);
  EXPECT_EQ(a.cells, 2);
  EXPECT_EQ(a.agreed, 2);
  EXPECT_EQ(a.exact, 1);
  EXPECT_EQ(a.crowded, 1);
  const MapAgreement rules = countAgreement(withThreeRulePicks({cellAt(100)}));
  EXPECT_EQ(rules.cells, 1);
  EXPECT_EQ(rules.agreed, 0);  // BSP (10 s) against Top-k's 4 s
}

}  // namespace
}  // namespace tetrad::experiment
