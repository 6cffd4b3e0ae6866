#include "tetrad/experiment/map_baselines.h"

#include <cmath>

namespace tetrad::experiment {
namespace {

constexpr double kGigabit = 1e9 / 8;  // bytes/s

// The first entry of `cell` of kind `kind` ("" when none).
std::string firstOf(const MapCell& cell, MethodKind kind) {
  for (const MapEntry& e : cell.entries) {
    if (e.kind == kind) return e.method;
  }
  return "";
}

}  // namespace

std::string threeRulePick(const MapCell& cell) {
  const std::string bsp = firstOf(cell, MethodKind::kPlainBsp);
  if (cell.bandwidth >= 10 * kGigabit) return bsp;
  if (cell.bandwidth < kGigabit) {
    std::string pick = firstOf(cell, MethodKind::kErrorFeedback);
    if (pick.empty()) pick = firstOf(cell, MethodKind::kModelAveraging);
    return pick.empty() ? bsp : pick;
  }
  const std::string half = firstOf(cell, MethodKind::kHalfPrecision);
  return half.empty() ? bsp : half;
}

std::vector<MapCell> withUnitMultipliers(std::vector<MapCell> cells) {
  for (MapCell& cell : cells) {
    double bspIterations = NAN;
    for (const MapEntry& e : cell.entries) {
      if (e.kind == MethodKind::kPlainBsp && std::isfinite(e.predictedIterations)) {
        bspIterations = e.predictedIterations;
        break;
      }
    }
    for (MapEntry& e : cell.entries) e.predictedIterations = bspIterations;
  }
  return cells;
}

std::vector<MapCell> withThreeRulePicks(std::vector<MapCell> cells) {
  for (MapCell& cell : cells) {
    const std::string pick = threeRulePick(cell);
    for (MapEntry& e : cell.entries) {
      const bool picked = e.method == pick;
      e.predictedTimePerIteration = picked ? 1.0 : NAN;
      e.predictedIterations = picked ? 1.0 : NAN;
    }
  }
  return cells;
}

}  // namespace tetrad::experiment
