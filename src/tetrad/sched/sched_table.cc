// Prediction tables of the schedule policies (sched_table.h).
//
// α–β cost per message: the ring all-reduce of collective_cost.h,
// 2(p−1)·α + 2(p−1)·⌈n/p⌉·β.
#include "tetrad/sched/sched_table.h"

#include <cmath>

#include "tetrad/core/error.h"
#include "tetrad/sched/plan_spec.h"

namespace tetrad::sched {

std::string ClusterAssumption::label() const {
  return fmt::format("{} × {:g} Gb/s", workers, bytesPerSecond * 8 / 1e9);
}

CommCost ringCommCost(const ClusterAssumption& cluster) {
  TETRAD_CHECK(cluster.workers >= 1 && std::isfinite(cluster.alpha) && cluster.alpha >= 0 &&
                   std::isfinite(cluster.bytesPerSecond) && cluster.bytesPerSecond > 0,
               InvalidArgument,
               "cluster: need workers >= 1, α >= 0 and bandwidth > 0, got {} workers, α={} s, "
               "{} B/s",
               cluster.workers, cluster.alpha, cluster.bytesPerSecond);
  CostParams params;
  params.alpha = cluster.alpha;
  params.beta = 1 / cluster.bytesPerSecond;
  return allreduceCommCost(AllreduceAlgorithm::kRing, cluster.workers, params);
}

std::vector<PolicyPredictions> predictPolicies(const Workload& workload,
                                               std::span<const std::string> specs,
                                               std::span<const ClusterAssumption> clusters) {
  std::vector<CommCost> costs;
  for (const ClusterAssumption& cluster : clusters) costs.push_back(ringCommCost(cluster));
  std::vector<PolicyPredictions> rows;
  for (const std::string& text : specs) {
    const SchedulePlanSpec spec = parseSchedulePlanSpec(text);
    PolicyPredictions row{spec.text, {}};
    for (const CommCost& cost : costs) {
      const SchedulePlan plan = spec.plan(workload.slots, cost);
      row.perCluster.push_back(
          predictIteration(workload.slots, workload.layerForwardSeconds, plan, cost));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> defaultTablePolicies() {
  return {"none",          "wfbp",           "fusion",        "fusion:4MiB",
          "mgwfbp:greedy", "mgwfbp:optimal", "priority:1MiB", "priority:256KiB"};
}

std::string formatPredictionTable(const Workload& workload, std::span<const PolicyPredictions> rows,
                                  std::span<const ClusterAssumption> clusters) {
  std::string out = "| policy |";
  std::string rule = "|---|";
  for (const ClusterAssumption& cluster : clusters) {
    out += fmt::format(" {} |", cluster.label());
    rule += "---:|";
  }
  out += "\n" + rule + "\n";
  double forward = 0;
  for (double f : workload.layerForwardSeconds) forward += f;
  const double compute = forward + backwardSeconds(workload.slots);
  out += "| compute only (F + B) |";
  for (size_t c = 0; c < clusters.size(); ++c) out += fmt::format(" {:.2f} |", compute * 1e3);
  out += "\n";
  for (const PolicyPredictions& row : rows) {
    out += fmt::format("| `{}` |", row.policy);
    for (const IterationPrediction& p : row.perCluster) {
      out += fmt::format(" {:.2f} / {:.2f} [{}] |", p.iterationSeconds * 1e3,
                         p.overlappedSeconds * 1e3, p.messages.size());
    }
    out += "\n";
  }
  return out;
}

}  // namespace tetrad::sched
