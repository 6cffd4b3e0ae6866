// What `tetrad advise` reads from a finished sweep: for a method map
// (advise_map.cc) its runs grouped by method and worker count, BSP's
// iterations per worker count, the multipliers the sweep measured, the
// compression error its runs recorded, and the cost model's time per
// iteration of a run's method on another network; for --results, its
// clusters as the validation's measured values.
//
// Pure functions over run records (they read config.json where a run's
// compute model is needed); print nothing except recordedCompressionError(),
// which says where each ω/δ comes from. Main thread only.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tetrad/experiment/run_record.h"
#include "tetrad/model/iteration_theory.h"
#include "tetrad/model/noise_ratio_fit.h"
#include "tetrad/model/validation.h"
#include "tetrad/model/workload.h"
#include "tetrad/train/train_config.h"

namespace tetrad::mapping {

// One method at one worker count: its finished runs, one per seed.
struct MethodRuns {
  int workers = 0;
  std::vector<experiment::RunRecord> seeds;
  const experiment::RunRecord& first() const { return seeds.front(); }
};

// Every worker count of the sweep (in sweep order, into `workerCounts`) and,
// for each, the first cluster with that count: its finished simulated runs
// grouped by method (tuning runs left out).
std::vector<MethodRuns> methodRunsOf(const std::vector<experiment::RunRecord>& records,
                                     std::vector<int>& workerCounts);

// Push-pull policies (ssp, asp): their trajectory depends on timing.
bool synchronous(const experiment::RunRecord& run);

// True when the run's schedule overlaps the backward pass
// (Scheduler::overlapsBackward(); false for none and for no schedule).
bool overlapsBackward(const experiment::RunRecord& run);

// Mean and (sample) standard deviation; NaN when any value is NaN (std NaN
// for one value).
std::pair<double, double> meanAndStd(const std::vector<double>& values);

// BSP's (all-reduce, no compression, no schedule) mean iterations to target
// over its seeds, per worker count that has such a run.
std::map<int, double> baselineIterationsOf(const std::vector<MethodRuns>& groups);

// The run's optimiser momentum (config.json), tetrad train's default where
// the run did not record it.
double momentumOf(const experiment::RunRecord& run);

// Each method's mean iterations to target over BSP's at its worker count,
// for methods without an overlap schedule whose every seed reached the
// target (noise_ratio_fit.h's input).
std::vector<model::MeasuredMultiplier> measuredMultipliersOf(
    const std::vector<MethodRuns>& groups, const std::map<int, double>& baselineIterations);

// ω/δ per compressor: the mean of what the sweep's runs recorded on their
// own gradients (summary.json compression_error), else measured on Gaussian
// vectors of `workload`'s buckets (and cached). Prints which were recorded.
model::CompressionErrorFunction recordedCompressionError(
    const std::vector<experiment::RunRecord>& records, const model::Workload& workload);

// The cost model's time per iteration of `run`'s method on `cluster`,
// averaged over the first `iterations` (a compressor's warm-up included,
// warmup_cost.h; an overlapping schedule through schedule_cost.h), with
// the run's non-finite guard and without encode/decode time (simulated runs
// do not charge it); NaN where the model refuses the method (e.g. measured
// compute).
double costModelTimePerIteration(const experiment::RunRecord& run, const train::TrainConfig& config,
                                 const std::string& cluster, const std::string& netModel,
                                 double iterations);

// R: the cost model's communication over compute time per iteration of
// `run`'s method on `cluster` (NaN where it refuses the method).
double costModelCommToCompute(const experiment::RunRecord& run, const train::TrainConfig& config,
                              const std::string& cluster, const std::string& netModel);

// The run's compute model with its compute time per iteration × `scale`
// (the map's compute axis: 0.1 is a device ten times faster): fixed:D →
// fixed:D·scale, flops:G → flops:G/scale, throughput:S → throughput:S/scale;
// `compute` itself at scale 1. InvalidArgument for a compute model that has
// no rate to scale (measured, device:NAME).
std::string scaledCompute(const std::string& compute, double scale);

// The sweep's clusters in `dir` as plain values for model/validation.h (the
// advisor's check against --results); InvalidArgument if none finished.
std::vector<model::MeasuredCluster> measuredClustersOf(const std::string& dir);

}  // namespace tetrad::mapping
