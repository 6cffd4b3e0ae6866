// Learning-rate tuning in sweeps: every method is compared at its best rate.
//
// A [[method]] with tune_lr = [r1, r2, ...] is first trained at every rate of
// its grid for a share of a run's iterations (tune_budget, default 0.25), on
// the sweep file's first cluster with its first seed; the rate whose run
// ends with the best tune_metric (test_accuracy: highest final test
// accuracy; train_loss: lowest last logged training loss; ties go to the
// larger rate; a diverged or failed run never wins) becomes the lr of all of
// the method's runs. Methods without tune_lr keep the lr they resolve to.
//
// A tuning run is an ordinary run (RunPlan, phase "tuning") whose lr is the
// grid point and whose max_iters is ceil(tune_budget × the iterations the
// full run plans), named "<method>-lr<rate>-<cluster>-s<seed>-<hash8>". Tuning
// runs live in OUT/tuning/ (kTuningFolder, so reports do not mix them with the
// compared runs) and are skipped when done like every run: an interrupted
// tuning phase resumes without redoing a finished point. OUT/tuning/
// tuning.json (kTuningIndex) records each tuned method's grid, metric and
// run folders, so `tetrad report` can show the grid, the metric at the
// budget, the pick and what tuning cost.
//
// Pure functions apart from reading and writing files under OUT/tuning;
// call from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/experiment/run_plan.h"
#include "tetrad/experiment/run_record.h"
#include "tetrad/experiment/sweep_runner.h"
#include "tetrad/experiment/sweep_spec.h"

namespace tetrad::experiment {

inline constexpr const char* kTuningFolder = "tuning";      // under the sweep's folder
inline constexpr const char* kTuningIndex = "tuning.json";  // in kTuningFolder

// "test_accuracy" or "train_loss".
std::string_view tuneMetricName(TuneMetric metric);
// False when `name` is neither.
bool tuneMetricFromName(std::string_view name, TuneMetric& metric);

// The iterations `tetrad train` runs for these arguments (the caller knows
// train's rules; this layer does not). Throws a tetrad Error when it cannot
// tell.
using RunLengthFn = std::function<int64_t(const std::vector<std::string>& trainArgs)>;

// The tuning runs of one method, one per grid point in grid order.
struct TuningPlan {
  std::string method;
  int methodIndex = 0;
  std::vector<std::string> grid;  // canonical rates, as in the file
  std::vector<RunPlan> runs;
  int64_t fullIterations = 0;  // what the full run plans
  int64_t budgetIterations = 0;
};

// The tuning runs of the selected methods that carry tune_lr (`only` as in
// planRuns(); tuning always runs on the file's first cluster, so a pick does
// not depend on --only). Throws InvalidArgument naming tune_lr for a
// timing-only method (it has no accuracy or loss to judge).
std::vector<TuningPlan> planTuning(const SweepSpec& spec, const std::vector<std::string>& only,
                                   const RunLengthFn& runLength);

// One grid point as its run folder tells it.
struct TuningPoint {
  std::string lr;
  std::string status;        // RunRecord::status
  double metric = kMissing;  // NaN: no value (not run, failed, diverged)
  RunRecord record;
};

struct TuningResult {
  std::string method;
  TuneMetric metric = TuneMetric::kTestAccuracy;
  double budget = 0;
  int64_t budgetIterations = 0;
  std::vector<TuningPoint> points;  // grid order
  std::string pick;                 // "" when some point has no result or none is usable
  bool complete = false;            // every point finished or diverged
};

// The value of `metric` for a finished run (NaN otherwise).
double metricOf(const RunRecord& record, TuneMetric metric);

// The best rate of `points` by `metric` (see the header comment); "" when
// no point has a value. Points without a value never win.
std::string pickRate(const std::vector<TuningPoint>& points, TuneMetric metric);

// Reads the runs of `plan` from `tuningDir` and picks (pick stays "" until
// every point is done).
TuningResult readTuning(const TuningPlan& plan, const std::string& tuningDir, TuneMetric metric,
                        double budget);

// Writes `tuningDir`/tuning.json: the entries of `results`, keeping those of
// other methods already there (a sweep run with --only tunes some methods).
void writeTuningIndex(const std::vector<TuningResult>& results, const std::string& tuningDir);

// The tuning recorded in `sweepDir`/tuning/tuning.json, read back from the
// run folders it names (empty when there was no tuning).
std::vector<TuningResult> readTuningIndex(const std::string& sweepDir);

// The tuning phase of a sweep.
struct TuningOutcome {
  std::vector<TuningResult> results;  // one per plan
  LrPicks picks;                      // the methods whose tuning picked a rate
  // Methods whose tuning did not finish (a run failed or was interrupted):
  // their runs wait for the next `tetrad run`.
  std::vector<std::string> unfinished;
  // Methods all of whose rates diverged or gave no value (the grid needs
  // fixing), as "FILE:LINE:COLUMN: key 'tune_lr' in [[method]] 'M': ...".
  std::vector<std::string> noPick;
  SweepOutcome sweep;
};

// Runs the tuning runs of `plans` into options.outDir/tuning (those done
// are skipped), rewrites tuning.json and picks each method's rate.
TuningOutcome runTuning(const std::vector<TuningPlan>& plans, const SweepSpec& spec,
                        const SweepOptions& options, std::FILE* progress);

// What the tuning runs of `plans` already in `sweepDir`/tuning say, without
// running any (for --dry-run).
std::vector<TuningResult> readTuningResults(const std::vector<TuningPlan>& plans,
                                            const SweepSpec& spec, const std::string& sweepDir);

}  // namespace tetrad::experiment
