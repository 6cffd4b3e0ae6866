// Predicting the validation set (validation_set.h): each point becomes one
// timing-only run on the analytic engine, started as a child `tetrad train`
// process (several at once with `jobs`), and its summary's
// throughput_samples_per_s becomes the point's predicted metric:
//
//   tetrad train --timing-only --engine analytic --net-model cm02
//     --model MODEL --batch-size BATCH --compute throughput:SINGLE
//     --cluster CLUSTER --workers NODES*DEVICES --data synthetic
//     --max-iters 10 [--sched ddp] ARGS...
//
// (--sched ddp unless ARGS name a schedule.) No constant is
// fitted, per point or globally. The comparison: relative error
// (predicted - published) / published; for speedups also whether the
// predicted speed-up is on the same side of 1 as the published one.
//
// Thread-safety: call from one thread; it owns its child processes.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/validation_set.h"

namespace tetrad::experiment {

struct ValidationResult {
  const ValidationPoint* point = nullptr;
  double throughput = 0;  // predicted samples/s of the cluster
  double predicted = 0;   // in the point's metric
  double relativeError = 0;
  int signRight = -1;  // speedup points: 1 right, 0 wrong; -1 not a speedup
  std::string error;   // the run failed: its log's last line
};

struct ValidationOptions {
  std::string program;  // the `tetrad` to start
  std::string outDir;   // runs/ID/ and logs go here
  int jobs = 1;
  int iterations = 10;
};

// The `tetrad train` command line of one point (without the program).
std::vector<std::string> validationRunArgs(const ValidationPoint& p, const std::string& runDir,
                                           int iterations);

std::vector<ValidationResult> predictValidationSet(const std::vector<ValidationPoint>& points,
                                                   const ValidationOptions& options);

}  // namespace tetrad::experiment
