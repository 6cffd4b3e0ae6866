#include "tetrad/experiment/report_cells.h"

#include <fmt/format.h>

#include <cmath>

#include "tetrad/core/units.h"
#include "tetrad/experiment/setting_keys.h"

namespace tetrad::experiment::cells {

std::string orDash(double value, const std::string& text) {
  return std::isnan(value) ? kNone : text;
}

std::string seconds(double value) {
  return orDash(value, formatSeconds(value));
}

std::string accuracy(const MethodRow& row) {
  if (std::isnan(row.accuracyMean)) return kNone;
  if (std::isnan(row.accuracyStd)) return fmt::format("{:.4f}", row.accuracyMean);
  return fmt::format("{:.4f} ± {:.4f}", row.accuracyMean, row.accuracyStd);
}

std::string toTarget(const MethodRow& row) {
  if (std::isnan(row.targetAccuracy) || row.targetAccuracy <= 0) return kNone;
  if (row.reachedTarget == 0) return "not reached";
  std::string text = formatSeconds(row.timeToTarget);
  if (!std::isnan(row.timeToTargetStd)) text += " ± " + formatSeconds(row.timeToTargetStd);
  if (row.reachedTarget < row.seeds) {
    text += fmt::format(" ({}/{} seeds)", row.reachedTarget, row.seeds);
  }
  return text;
}

std::string itersToTarget(const MethodRow& row) {
  if (std::isnan(row.itersToTarget)) return kNone;
  std::string text = fmt::format("{:.0f}", row.itersToTarget);
  if (!std::isnan(row.itersToTargetStd)) text += fmt::format(" ± {:.1f}", row.itersToTargetStd);
  return text;
}

std::string learningRate(const MethodRow& row) {
  if (std::isnan(row.lr)) return kNone;
  return canonicalNumber(row.lr) + (row.lrTunedFrom.empty() ? "" : " (tuned)");
}

bool reachedByAll(const MethodRow& row) {
  return row.reachedTarget > 0 && row.reachedTarget == row.seeds;
}

// `part`'s share of compute + codec + communication per iteration.
std::string share(const MethodRow& row, double part) {
  const double codec = std::isnan(row.codecPerIter) ? 0.0 : row.codecPerIter;
  const double total = row.computePerIter + codec + row.commPerIter;
  if (std::isnan(total) || std::isnan(part) || total <= 0) return kNone;
  return fmt::format("{:.0f}%", 100 * part / total);
}

std::string labelOf(const MethodRow& row) {
  std::string label = row.method;
  if (row.isBaseline) label += " (baseline)";
  if (row.isFp16Baseline) label += " (fp16 baseline)";
  if (row.layerWise) label += " (layer-wise)";
  if (row.retimed > 0) label += "¹";
  return label;
}

}  // namespace tetrad::experiment::cells
