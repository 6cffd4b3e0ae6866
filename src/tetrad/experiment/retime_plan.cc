#include "tetrad/experiment/retime_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tetrad/core/error.h"
#include "tetrad/experiment/run_hash.h"
#include "tetrad/model/compute_spec.h"
#include "tetrad/sync/registry.h"

namespace tetrad::experiment {
namespace {

// Setting keys that only say which network a run is on.
const std::set<std::string>& networkKeys() {
  static const std::set<std::string> keys = {"cluster", "net_model", "net_profile"};
  return keys;
}

const TrainArgument* argumentFor(const RunPlan& run, const std::string& key) {
  for (const TrainArgument& argument : run.arguments) {
    if (argument.key == key) return &argument;
  }
  return nullptr;
}

// The value of a scalar setting, or "" when the run leaves it to train's default.
std::string valueOf(const RunPlan& run, const std::string& key) {
  const TrainArgument* argument = argumentFor(run, key);
  return argument != nullptr && argument->tokens.size() == 2 ? argument->tokens[1] : "";
}

// The run's train arguments without the network keys.
std::vector<std::string> trajectoryArgs(const RunPlan& run) {
  std::vector<TrainArgument> kept;
  for (const TrainArgument& argument : run.arguments) {
    if (networkKeys().count(argument.key) == 0) kept.push_back(argument);
  }
  return flattenArguments(kept);
}

}  // namespace

std::string retimeRefusal(const RunPlan& run) {
  if (run.mpi) return "an MPI cluster (its times are wall times)";
  if (!run.phase.empty()) return fmt::format("a {} run", run.phase);
  if (run.hasFlag("--timing-only")) return "timing-only";
  if (!valueOf(run, "engine").empty()) return "an --engine run";
  const std::string sync = valueOf(run, "sync").empty() ? "bsp" : valueOf(run, "sync");
  try {
    if (makeSyncPolicy(sync)->mode() != SyncMode::kCollective) {
      return fmt::format("asynchronous (--sync {}: its trajectory depends on timing)", sync);
    }
  } catch (const Error&) {
    return fmt::format("--sync {} is not a known sync policy", sync);
  }
  const std::string compute = valueOf(run, "compute");
  model::ComputeSpec spec;  // no --compute: measured
  if (!compute.empty()) {
    try {
      spec = model::parseComputeSpec(compute);
    } catch (const Error& e) {
      return fmt::format("--compute {} does not parse ({})", compute, e.what());
    }
  }
  if (spec.kind == model::ComputeSpec::Kind::kMeasured) {
    return "measured compute time (set compute = \"flops:G\" or \"fixed:D\")";
  }
  const std::string cluster = valueOf(run, "cluster");
  if (!cluster.starts_with("sim:")) return "not on a simulated cluster";
  return "";
}

void markRetimedRuns(const SweepSpec& spec, std::vector<RunPlan>& runs) {
  if (!spec.retime) return;
  // Each run's eligibility and trajectory arguments, computed once.
  std::vector<bool> eligible(runs.size());
  std::vector<std::vector<std::string>> trajectories(runs.size());
  for (size_t r = 0; r < runs.size(); ++r) {
    eligible[r] = retimeRefusal(runs[r]).empty();
    if (eligible[r]) trajectories[r] = trajectoryArgs(runs[r]);
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    RunPlan& run = runs[r];
    if (!eligible[r]) continue;
    for (size_t s = 0; s < r; ++s) {
      const RunPlan& source = runs[s];
      if (!eligible[s] || !source.retimeOf.empty() || source.methodIndex != run.methodIndex ||
          source.seed != run.seed || source.clusterIndex >= run.clusterIndex ||
          trajectories[s] != trajectories[r]) {
        continue;
      }
      // A network model the source sets and this run leaves to the default
      // cannot be said to `tetrad retime` (it keeps the run's): train instead.
      if ((argumentFor(source, "net_model") && !argumentFor(run, "net_model")) ||
          (argumentFor(source, "net_profile") && !argumentFor(run, "net_profile"))) {
        continue;
      }
      run.retimeOf = source.name;
      run.retimeArgs = {"--cluster", valueOf(run, "cluster")};
      for (const auto& [key, flag] : {std::pair<std::string, std::string>{"net_model", "--net-model"},
                                      {"net_profile", "--net-profile"}}) {
        if (!valueOf(run, key).empty()) run.retimeArgs.insert(run.retimeArgs.end(), {flag, valueOf(run, key)});
      }
      std::vector<std::string> hashed = run.trainArgs();
      hashed.insert(hashed.end(), {"--retimed-from", source.hash});
      run.hash = hashArguments(hashed);
      run.name = fmt::format("{}-{}-s{}-{}", run.methodLabel, run.clusterLabel, run.seed,
                             run.hash.substr(0, 8));
      break;
    }
  }
}

}  // namespace tetrad::experiment
