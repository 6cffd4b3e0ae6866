#include "tetrad/experiment/report_table.h"

#include <fmt/format.h>

#include <cmath>

#include "tetrad/core/units.h"

namespace tetrad::experiment {
namespace {

constexpr const char* kNone = "-";

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
  if (row.reachedTarget < row.seeds) {
    text += fmt::format(" ({}/{} seeds)", row.reachedTarget, row.seeds);
  }
  return text;
}

std::string ratio(double value) {
  return orDash(value, fmt::format("{:.2f}×", value));
}

std::string share(const MethodRow& row) {
  const double total = row.computePerIter + row.commPerIter;
  if (std::isnan(total) || total <= 0) return kNone;
  return fmt::format("{:.0f}%", 100 * row.commPerIter / total);
}

std::string tableOf(const ClusterGroup& group) {
  const MethodRow* baseline = group.baseline >= 0 ? &group.rows[size_t(group.baseline)] : nullptr;
  std::string text =
      fmt::format("## cluster {}: {}, {} workers\n\n", group.cluster, group.spec, group.workers);
  text +=
      "| method | sync | arch | compress | sched | seeds | final accuracy | time to target | "
      "speed-up to target | time/iter | speed-up per iter | bytes/worker/iter | compute/iter | "
      "comm/iter | comm share |\n";
  text += "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const MethodRow& row : group.rows) {
    double upTarget = kMissing;
    double upIter = kMissing;
    if (baseline != nullptr) {
      if (row.reachedTarget == row.seeds && baseline->reachedTarget == baseline->seeds) {
        upTarget = speedUp(baseline->timeToTarget, row.timeToTarget);
      }
      upIter = speedUp(baseline->timePerIter, row.timePerIter);
    }
    text += fmt::format(
        "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        row.method, row.isBaseline ? " (baseline)" : "", row.sync, row.arch, row.compress,
        row.sched, row.seeds, accuracy(row), toTarget(row), ratio(upTarget),
        seconds(row.timePerIter), ratio(upIter),
        orDash(row.bytesPerWorkerIter, formatBytes(row.bytesPerWorkerIter)),
        seconds(row.computePerIter), seconds(row.commPerIter), share(row));
  }
  if (baseline == nullptr) {
    text +=
        "\nNo baseline (bsp, allreduce, compress none, sched none) on this cluster: "
        "speed-ups are \"-\".\n";
  }
  return text;
}

}  // namespace

double speedUp(double baselineTime, double methodTime) {
  if (std::isnan(baselineTime) || std::isnan(methodTime) || baselineTime <= 0 || methodTime <= 0) {
    return kMissing;
  }
  return baselineTime / methodTime;
}

std::string markdownTables(const std::vector<ClusterGroup>& groups) {
  std::string text;
  for (const ClusterGroup& group : groups) {
    if (!text.empty()) text += "\n";
    text += tableOf(group);
  }
  return text;
}

}  // namespace tetrad::experiment
