#include "tetrad/experiment/report_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tetrad/core/units.h"
#include "tetrad/experiment/report_cells.h"
#include "tetrad/experiment/setting_keys.h"

namespace tetrad::experiment {
namespace {

using namespace cells;  // NOLINT: the table is made of cells

// A speed-up of `row` over `base` (means), "(tie)" when they differ by no
// more than one standard deviation.
// The base row itself gets no tie.
std::string versus(double baseMean, double baseStd, double mean, double std, bool self) {
  const double up = speedUp(baseMean, mean);
  if (std::isnan(up)) return kNone;
  std::string text = fmt::format("{:.2f}×", up);
  if (!self && withinSpread(baseMean, baseStd, mean, std)) text += " (tie)";
  return text;
}

std::string toTargetVersus(const MethodRow* base, const MethodRow& row) {
  if (base == nullptr || !reachedByAll(*base) || !reachedByAll(row)) return kNone;
  return versus(base->timeToTarget, base->timeToTargetStd, row.timeToTarget, row.timeToTargetStd,
                base == &row);
}

std::string perIterVersus(const MethodRow* base, const MethodRow& row) {
  if (base == nullptr) return kNone;
  return versus(base->timePerIter, base->timePerIterStd, row.timePerIter, row.timePerIterStd,
                base == &row);
}

std::string tableOf(const ClusterGroup& group) {
  const MethodRow* baseline = group.baseline >= 0 ? &group.rows[size_t(group.baseline)] : nullptr;
  const MethodRow* fp16 =
      group.fp16Baseline >= 0 ? &group.rows[size_t(group.fp16Baseline)] : nullptr;
  std::string text =
      fmt::format("## cluster {}: {}, {} workers{}\n\n", group.cluster, group.spec, group.workers,
                  group.netModel.empty() ? "" : ", network model " + group.netModel);
  text +=
      "| method | sync | arch | compress | sched | lr | seeds | final accuracy | time to target | "
      "iterations to target | speed-up to target | vs fp16 to target | time/iter | "
      "speed-up per iter | vs fp16 per iter | bytes/worker/iter | compute/iter | codec/iter | "
      "comm/iter | codec share | comm share |\n";
  text += "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  bool layerWise = false;
  bool compresses = false;
  bool retimed = false;
  for (const MethodRow& row : group.rows) {
    layerWise = layerWise || row.layerWise;
    retimed = retimed || row.retimed > 0;
    // The 16-bit baseline is the reference for methods that compress.
    const bool againstFp16 = !row.role.uncompressed && !row.isFp16Baseline;
    compresses = compresses || againstFp16;
    const MethodRow* fp16Base = againstFp16 ? fp16 : nullptr;
    text += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} "
        "| {} | {} | {} |\n",
        labelOf(row), row.sync, row.arch, row.compress, row.sched, learningRate(row), row.seeds,
        accuracy(row), toTarget(row), itersToTarget(row), toTargetVersus(baseline, row),
        toTargetVersus(fp16Base, row), seconds(row.timePerIter), perIterVersus(baseline, row),
        perIterVersus(fp16Base, row),
        orDash(row.bytesPerWorkerIter, formatBytes(row.bytesPerWorkerIter)),
        seconds(row.computePerIter), seconds(row.codecPerIter), seconds(row.commPerIter),
        share(row, row.codecPerIter), share(row, row.commPerIter));
  }
  if (baseline == nullptr) {
    text +=
        "\nNo baseline (bsp, allreduce, compress none, sched none, fused buckets) on this "
        "cluster: speed-ups are \"-\".\n";
  }
  if (fp16 == nullptr && compresses) {
    text +=
        "\nNo fp16 baseline (bsp, allreduce, compress fp16, sched none, fused buckets) on this "
        "cluster: the \"vs fp16\" columns are \"-\".\n";
  }
  if (layerWise) {
    text +=
        "\n(layer-wise): bucket_size 0, one bucket and one compressed packet per tensor: an "
        "ablation, not a like-for-like comparison with fused buckets.\n";
  }
  if (retimed) {
    text +=
        "\n¹ retimed: trained once per seed on an earlier cluster and replayed timing-only "
        "on this network (`tetrad retime`): the same iterations, losses and accuracies, this "
        "network's times and bytes.\n";
  }
  return text;
}

}  // namespace

bool withinSpread(double meanA, double stdA, double meanB, double stdB) {
  if (std::isnan(meanA) || std::isnan(meanB)) return false;
  double spread = kMissing;
  if (!std::isnan(stdA)) spread = stdA;
  if (!std::isnan(stdB)) spread = std::isnan(spread) ? stdB : std::max(spread, stdB);
  return !std::isnan(spread) && std::fabs(meanA - meanB) <= spread;
}

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

namespace tetrad::experiment {

std::string winnersLine(const std::vector<ClusterGroup>& groups) {
  std::string line;
  for (const ClusterGroup& g : groups) {
    const MethodRow* fastest = nullptr;
    const MethodRow* accurate = nullptr;
    for (const MethodRow& row : g.rows) {
      if (row.layerWise || row.seeds == 0) continue;
      if (row.reachedTarget == row.seeds && !std::isnan(row.timeToTarget) &&
          (fastest == nullptr || row.timeToTarget < fastest->timeToTarget))
        fastest = &row;
      if (!std::isnan(row.accuracyMean) &&
          (accurate == nullptr || row.accuracyMean > accurate->accuracyMean))
        accurate = &row;
    }
    std::string text;
    if (fastest != nullptr) {
      const MethodRow* base = g.baseline >= 0 ? &g.rows[size_t(g.baseline)] : nullptr;
      const double speed = base ? speedUp(base->timeToTarget, fastest->timeToTarget) : kMissing;
      text = fmt::format("{} {} ({} to {:.2f}{})", g.cluster, fastest->method,
                         formatSeconds(fastest->timeToTarget), fastest->targetAccuracy,
                         std::isnan(speed) || fastest == base
                             ? ""
                             : fmt::format(", {:.2f}× {}", speed, base->method));
    } else if (accurate != nullptr) {
      text = fmt::format("{} none reached {}; most accurate {} ({:.4f})", g.cluster,
                         std::isnan(accurate->targetAccuracy)
                             ? std::string("a target (none set)")
                             : fmt::format("{:.2f}", accurate->targetAccuracy),
                         accurate->method, accurate->accuracyMean);
    } else {
      continue;
    }
    line += (line.empty() ? "" : "; ") + text;
  }
  return line.empty() ? "" : "Winner per network: " + line + "\n";
}

}  // namespace tetrad::experiment
