// Grouping finished runs for reports: per cluster, one row per method, the
// seeds of a (cluster, method) pair averaged.
//
// Only runs with status "ok" count. Clusters and methods keep the order of
// the sweep file (RunRecord indices), then of their labels. The baseline of
// a cluster is its first method whose sync is bsp, arch allreduce:*,
// compress none and sched none (BSP without compression).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {

struct MethodRow {
  std::string method;
  std::string sync, arch, compress, sched;
  int seeds = 0;                   // ok runs averaged
  double accuracyMean = kMissing;  // final test accuracy
  double accuracyStd = kMissing;   // sample standard deviation (seeds > 1)
  double targetAccuracy = kMissing;
  int reachedTarget = 0;           // seeds that reached it
  double timeToTarget = kMissing;  // mean over the seeds that reached it
  double trainTime = kMissing;
  double timePerIter = kMissing;  // training time / iterations
  double bytesPerWorkerIter = kMissing;
  double computePerIter = kMissing;  // mean over ranks, seconds per iteration
  double commPerIter = kMissing;
  double throughput = kMissing;  // samples per second
  std::string curveFolder;       // the run (lowest seed) whose curves are plotted
  bool isBaseline = false;
};

struct ClusterGroup {
  std::string cluster;  // label
  std::string spec;     // cluster spec of its runs
  int workers = 0;
  std::vector<MethodRow> rows;
  int baseline = -1;  // index into rows, or -1
};

// True for BSP with all-reduce, no compression and no scheduling.
bool isBaselinePoint(const std::string& sync, const std::string& arch, const std::string& compress,
                     const std::string& sched);

// Groups the ok runs of `records` (see the header comment).
std::vector<ClusterGroup> groupRuns(const std::vector<RunRecord>& records);

}  // namespace tetrad::experiment
