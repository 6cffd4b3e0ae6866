// Penalties and agreement against measured clusters (validation.h).
#include "tetrad/model/validation.h"

#include <cmath>
#include <map>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad::model {

PenaltyTable measuredPenalties(const std::vector<MeasuredCluster>& clusters) {
  std::map<std::string, std::pair<double, int>> sums;
  for (const MeasuredCluster& cluster : clusters) {
    const MeasuredMethod* baseline = nullptr;
    for (const MeasuredMethod& m : cluster.methods) {
      if (m.baseline && !baseline) baseline = &m;
    }
    if (!baseline || !std::isfinite(baseline->finalAccuracy)) continue;
    for (const MeasuredMethod& m : cluster.methods) {
      if (&m == baseline || !std::isfinite(m.finalAccuracy)) continue;
      auto& [sum, count] = sums[m.method.label()];
      sum += m.finalAccuracy - baseline->finalAccuracy;
      ++count;
    }
  }
  PenaltyTable table;
  for (const auto& [label, sum] : sums) table[label] = {sum.first / sum.second, sum.second};
  return table;
}

Agreement compareWithResults(const std::vector<MeasuredCluster>& clusters,
                             const std::function<ComputeTime(const Workload&)>& fallbackCompute,
                             const CodecFunction& codec) {
  Agreement agreement;
  for (const MeasuredCluster& cluster : clusters) {
    ClusterAgreement row;
    row.cluster = cluster.label;
    try {
      ModelContext context;
      context.workload = modelWorkload(cluster.model);
      context.network = networkModel(cluster.spec, cluster.workers);
      context.codec = codec;
      context.compute = std::isfinite(cluster.computePerIter) && cluster.computePerIter > 0
                            ? ComputeTime{cluster.computePerIter, "measured in the results"}
                            : fallbackCompute(context.workload);
      double best = INFINITY, bestToTarget = INFINITY;
      for (const MeasuredMethod& m : cluster.methods) {
        try {
          const Prediction p = predictMethod(m.method, context);
          if (p.seconds < best) {
            best = p.seconds;
            row.advised = m.label;
            row.advisedSeconds = p.seconds;
          }
          if (std::isfinite(m.timeToTarget) && std::isfinite(m.timePerIter) && m.timePerIter > 0) {
            const double toTarget = p.seconds * (m.timeToTarget / m.timePerIter);
            if (toTarget < bestToTarget) {
              bestToTarget = toTarget;
              row.advisedToTarget = m.label;
              row.advisedToTargetSeconds = toTarget;
            }
          }
        } catch (const Error&) {
          // A point the model does not cover: not a candidate.
        }
      }
    } catch (const Error& e) {
      row.note = e.what();
    }
    double fastest = INFINITY;
    for (const MeasuredMethod& m : cluster.methods) {
      if (std::isfinite(m.timeToTarget) && m.timeToTarget < fastest) {
        fastest = m.timeToTarget;
        row.measured = m.label;
        row.measuredTimeToTarget = m.timeToTarget;
      }
    }
    if (row.note.empty() && row.advised.empty()) row.note = "no method the model covers";
    if (row.note.empty() && row.measured.empty()) row.note = "no method reached the target";
    row.counted = row.note.empty();
    row.agree = row.counted && row.advised == row.measured;
    row.agreeToTarget = row.counted && row.advisedToTarget == row.measured;
    agreement.counted += row.counted ? 1 : 0;
    agreement.agreed += row.agree ? 1 : 0;
    agreement.agreedToTarget += row.agreeToTarget ? 1 : 0;
    agreement.clusters.push_back(std::move(row));
  }
  return agreement;
}

std::vector<std::string> formatAgreement(const Agreement& agreement) {
  std::vector<std::string> lines;
  for (const ClusterAgreement& row : agreement.clusters) {
    if (!row.counted) {
      lines.push_back(fmt::format("cluster {}: not compared ({})", row.cluster, row.note));
      continue;
    }
    std::string line = fmt::format(
        "cluster {}: advised {} ({:.3f} ms/iter predicted); fastest to target {} ({}): {}",
        row.cluster, row.advised, row.advisedSeconds * 1e3, row.measured,
        formatSeconds(row.measuredTimeToTarget), row.agree ? "agree" : "disagree");
    if (!row.advisedToTarget.empty()) {
      line += fmt::format("; with measured iterations to target: advised {} ({} predicted): {}",
                          row.advisedToTarget, formatSeconds(row.advisedToTargetSeconds),
                          row.agreeToTarget ? "agree" : "disagree");
    }
    lines.push_back(std::move(line));
  }
  lines.push_back(fmt::format(
      "agreement: {} of {} clusters per iteration, {} of {} with measured iterations to target",
      agreement.agreed, agreement.counted, agreement.agreedToTarget, agreement.counted));
  return lines;
}

}  // namespace tetrad::model
