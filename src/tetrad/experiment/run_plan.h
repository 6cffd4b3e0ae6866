// RunPlan: one run of a sweep — a method on a cluster with one seed — as the
// canonical list of `tetrad train` arguments it resolves to.
//
// planRuns() expands a SweepSpec into methods × clusters × seeds (in that
// nesting: for each cluster, each method, each seed). A run's arguments take
// every setting key in the canonical order of setting_keys.h, each from the
// most specific table that sets it (method, then cluster, then [workload]);
// keys nobody sets are left to `tetrad train`'s defaults. The hash of that
// list (run_hash.h) keys the run folder "<method>-<cluster>-s<seed>-<hash8>".
// Launch details that do not change the result (the run folder, mpirun's own
// arguments) are not hashed.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tetrad/experiment/sweep_spec.h"

namespace tetrad::experiment {

// One setting as train arguments: {"--lr", "0.1"}, {"--sim-cfg", "a",
// "--sim-cfg", "b"}, or the raw tokens of `args`.
struct TrainArgument {
  std::string key;  // setting key, e.g. "lr"
  std::vector<std::string> tokens;
  SourceRef where;
  std::string table;  // "[workload]", "[[method]] 'fp16'", ...
};

struct RunPlan {
  std::string methodLabel;
  std::string baseline16;  // the sweep's baseline16 label ("": automatic)
  std::string clusterLabel;
  int methodIndex = 0;   // position in the sweep file
  int clusterIndex = 0;  // position in the sweep file
  uint64_t seed = 1;
  bool mpi = false;
  int workers = 0;  // 0: fixed by the simulated cluster spec or train's default
  std::vector<std::string> mpirunArgs;
  SourceRef methodWhere;
  std::vector<TrainArgument> arguments;  // canonical order
  std::string hash;                      // 16 hex digits of hashArguments(trainArgs())
  std::string name;                      // "<method>-<cluster>-s<seed>-<hash8>"
  // Learning-rate tuning (lr_tuning.h), recorded in run.json, not hashed:
  // a full run of a tuned method names the grid its lr was picked from; a
  // tuning run has phase "tuning" and the metric that judges it.
  std::vector<std::string> lrTunedFrom;
  std::string phase;  // "" (a run of the sweep) or "tuning"
  std::string tuneMetric;
  // Retiming ([workload] retime = true, retime_plan.h): the name of the run
  // of the same method and seed on an earlier cluster that this run is a
  // retime of, and the `tetrad retime` arguments (--cluster, --net-model,
  // --net-profile) that put it on this run's network. Empty: trained.
  std::string retimeOf;
  std::vector<std::string> retimeArgs;

  // The arguments after `tetrad train`, without --out and --name.
  std::vector<std::string> trainArgs() const;
  // Whether trainArgs() holds `flag` (e.g. "--timing-only").
  bool hasFlag(const std::string& flag) const;
};

// Flattens the tokens of `arguments`.
std::vector<std::string> flattenArguments(const std::vector<TrainArgument>& arguments);

// Learning rates picked by tuning: method label → canonical lr.
using LrPicks = std::map<std::string, std::string>;

// Expands `spec`. `only`: when not empty, keep the methods and clusters
// whose labels it lists (a list naming only methods keeps every cluster, and
// the other way round); a label that is neither is an InvalidArgument.
// `picks`: the lr of each tuned method (its tune_lr place is blamed for it);
// a method with tune_lr but no pick keeps the lr it resolves to, and its
// runs name the grid in lrTunedFrom only when picked. With spec.retime, the
// runs that can be retimed from an earlier run of the list are marked so
// (markRetimedRuns, retime_plan.h).
std::vector<RunPlan> planRuns(const SweepSpec& spec, const std::vector<std::string>& only = {},
                              const LrPicks& picks = {});

// One run: method `methodIndex` on cluster `clusterIndex` with `seed`;
// `overrides` (key → setting) win over every table of the file.
RunPlan planRun(const SweepSpec& spec, int clusterIndex, int methodIndex, uint64_t seed,
                const Settings& overrides = {});

// The child's command line: `exe train ARGS --out FOLDER --name NAME`, under
// `mpirun -np W [mpirun args]` for an MPI cluster. A simulated training run
// also gets `--sim-threads simThreads` when simThreads > 0, unless its
// arguments set it or it is timing-only (which runs on one thread); like the
// folder, that does not change the result and is not hashed. A retimed run
// (retimeOf) is `exe retime FOLDER/../SOURCE RETIME_ARGS --out FOLDER --as-run`.
std::vector<std::string> childCommand(const RunPlan& run, const std::string& exe,
                                      const std::string& folder, const std::string& mpirun,
                                      int simThreads = 0);

}  // namespace tetrad::experiment
