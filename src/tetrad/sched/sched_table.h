// Scheduling prediction tables: the pipeline model's iteration time of each
// schedule policy for a workload on a few clusters, as a markdown table.
//
// A cluster is p workers on a flat network of latency α and bandwidth 1/β;
// its CommCost is the ring all-reduce of collectives/collective_cost.h
// (2(p−1)·α + 2(p−1)·⌈n/p⌉·β with exact block sizes). Each cell holds the
// two times of pipeline_cost.h in milliseconds, "T / T_ov", with the number
// of messages per iteration: T when the next forward waits for every update,
// T_ov when it waits per layer (forward overlap). The numbers are cost-model
// predictions, never measurements; `tetrad bench sched` can print them.
//
// Pure functions; thread-safe.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tetrad/sched/comm_cost.h"
#include "tetrad/sched/model_shapes.h"
#include "tetrad/sched/pipeline_cost.h"

namespace tetrad::sched {

struct ClusterAssumption {
  int workers = 8;
  double alpha = 25e-6;            // seconds per message
  double bytesPerSecond = 1.25e9;  // 10 Gb/s
  std::string label() const;       // "8 × 10 Gb/s"
};

// Ring all-reduce on the cluster. Throws InvalidArgument on p < 1, α < 0 or
// a bandwidth <= 0.
CommCost ringCommCost(const ClusterAssumption& cluster);

struct PolicyPredictions {
  std::string policy;                           // the spec
  std::vector<IterationPrediction> perCluster;  // one per cluster, in order
};

// Every spec (parseSchedulePlanSpec) on every cluster. Throws
// InvalidArgument on a bad spec or cluster.
std::vector<PolicyPredictions> predictPolicies(const Workload& workload,
                                               std::span<const std::string> specs,
                                               std::span<const ClusterAssumption> clusters);

// none, wfbp, fusion (25 MiB), fusion:4MiB, mgwfbp, mgwfbp:optimal,
// priority:1MiB, priority:256KiB.
std::vector<std::string> defaultTablePolicies();

// A markdown table: one row per policy, one column per cluster, and a first
// row with the compute time F + B.
std::string formatPredictionTable(const Workload& workload, std::span<const PolicyPredictions> rows,
                                  std::span<const ClusterAssumption> clusters);

}  // namespace tetrad::sched
