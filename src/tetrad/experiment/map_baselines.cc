#include "tetrad/experiment/map_baselines.h"

#include <cmath>
#include <sstream>

namespace tetrad::experiment {
namespace {

constexpr double kGigabit = 1e9 / 8;  // bytes/s

struct Words {
  std::string sync, arch, compress;
};

Words wordsOf(const std::string& label) {
  std::istringstream in(label);
  Words w;
  in >> w.sync >> w.arch >> w.compress;
  return w;
}

bool isBsp(const Words& w) {
  return w.sync == "bsp" && w.arch.starts_with("allreduce") && w.compress == "none";
}
bool isHalf(const Words& w) {
  return w.sync == "bsp" && (w.compress.starts_with("fp16") || w.compress.starts_with("bf16"));
}
bool isErrorFeedback(const Words& w) {
  const std::string& c = w.compress;
  return c.find(",ef") != std::string::npos || c.starts_with("powersgd") || c.starts_with("dgc") ||
         c.starts_with("efsign");
}
bool isLocal(const Words& w) {
  return w.sync.starts_with("local") || w.sync.starts_with("post-local");
}

// The first entry of `cell` whose label passes `test` ("" when none).
template <typename Test>
std::string firstOf(const MapCell& cell, Test test) {
  for (const MapEntry& e : cell.entries) {
    if (test(wordsOf(e.method))) return e.method;
  }
  return "";
}

}  // namespace

std::string threeRulePick(const MapCell& cell) {
  const std::string bsp = firstOf(cell, isBsp);
  if (cell.bandwidth >= 10 * kGigabit) return bsp;
  if (cell.bandwidth < kGigabit) {
    std::string pick = firstOf(cell, isErrorFeedback);
    if (pick.empty()) pick = firstOf(cell, isLocal);
    return pick.empty() ? bsp : pick;
  }
  const std::string half = firstOf(cell, isHalf);
  return half.empty() ? bsp : half;
}

std::vector<MapCell> withUnitMultipliers(std::vector<MapCell> cells) {
  for (MapCell& cell : cells) {
    double bspIterations = NAN;
    for (const MapEntry& e : cell.entries) {
      if (isBsp(wordsOf(e.method)) && std::isfinite(e.predictedIterations)) {
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
