// SweepSpec: one experiment file (TOML) as plain values.
//
//   [workload]            settings every run shares, and seeds = [1, 2, ...]
//   [[cluster]]           label, spec ("sim:..." or "mpi"), workers, sim_cfg,
//                         mpirun_args, and settings that override [workload]
//   [[method]]            label, sync, arch, compress, sched, and settings that
//                         override [workload] and the cluster; tune_lr, a
//                         learning-rate grid (lr_tuning.h)
//   [workload] also       tune_budget (share of a run's iterations a tuning
//                         run trains), tune_metric, and retime (train each
//                         synchronous method once per seed, retime it onto
//                         the other clusters: retime_plan.h)
//   [map]                 bandwidth, latency (MIN:MAX:STEPS), net_model and
//                         noise_ratio (a number or "fit") of
//                         the method map `tetrad run` draws when the sweep
//                         ends (`tetrad advise --map`, method_map.h)
//
// Every setting keeps where it was written (file, line, column), so that any
// later error (a bad value found when the runs are validated) names the place
// to fix. parseSweepFile() (sweep_file.h) fills it; run_plan.h expands it
// into runs.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tetrad/experiment/setting_keys.h"

namespace tetrad::experiment {

// A place in a sweep file.
struct SourceRef {
  std::string file;
  int line = 0;    // 1-based; 0: unknown
  int column = 0;  // 1-based; 0: unknown
  // "FILE:LINE:COLUMN", "FILE:LINE" or "FILE".
  std::string toString() const;
};

// One setting: a key of setting_keys.h and its canonical value(s).
struct Setting {
  const SettingKey* key = nullptr;
  std::vector<std::string> values;  // one for scalars; any number for lists
  SourceRef where;
  std::string table;  // "[workload]", "[[method]] 'fp16'", ...
};

// Key name → setting.
using Settings = std::map<std::string, Setting>;

struct ClusterEntry {
  std::string label;
  SourceRef where;  // the table's first key
  bool mpi = false;
  int workers = 0;  // 0: not given (a simulated spec may fix the count)
  std::vector<std::string> mpirunArgs;
  Settings settings;  // includes "cluster" (the spec) and "workers" when given
};

struct MethodEntry {
  std::string label;
  SourceRef where;
  Settings settings;
  // tune_lr: the learning rates to try, canonical numbers in file order
  // (empty: no tuning, the method keeps the lr it resolves to).
  std::vector<std::string> tuneLr;
  SourceRef tuneLrWhere;
};

// What a tuning run is judged by (tune_metric).
enum class TuneMetric {
  kTestAccuracy,  // "test_accuracy": final test accuracy, higher is better
  kTrainLoss,     // "train_loss": the last logged training loss, lower is better
};

// [map]: draw the method map after the sweep.
struct MapTable {
  bool present = false;
  SourceRef where;
  std::string bandwidth = "100Mbps:400Gbps:6";  // as `tetrad advise --map-bandwidth`
  std::string latency = "1us:1ms:3";
  std::string netModel;            // "": each run's own
  std::string computeScale = "1";  // as `tetrad advise --map-compute`: "0.1,1,10"
  // The advisor's noise ratio s (`tetrad advise --noise-ratio`): a number,
  // "fit" (fitted to the sweep's measured multipliers), or "" (the
  // advisor's default, model/iteration_theory.h).
  std::string noiseRatio;
};

struct SweepSpec {
  std::string file;  // as given
  std::string description;
  Settings workload;
  std::vector<uint64_t> seeds = {1};
  SourceRef seedsWhere;
  double tuneBudget = 0.25;  // in (0, 1)
  SourceRef tuneBudgetWhere;
  TuneMetric tuneMetric = TuneMetric::kTestAccuracy;
  SourceRef tuneMetricWhere;
  // retime = true: synchronous methods train once per seed and are retimed
  // onto the other clusters (retime_plan.h).
  bool retime = false;
  SourceRef retimeWhere;
  std::vector<ClusterEntry> clusters;
  std::vector<MethodEntry> methods;
  MapTable map;
  // baseline16 = "LABEL": the method reports compare compressing methods
  // with ("vs fp16"), e.g. fp16 on DDP's overlapped buckets; "": the
  // automatic choice (run_groups.h).
  std::string baseline16;
  SourceRef baseline16Where;
};

}  // namespace tetrad::experiment
