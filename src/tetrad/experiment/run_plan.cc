#include "tetrad/experiment/run_plan.h"

#include <algorithm>
#include <filesystem>

#include "tetrad/core/error.h"
#include "tetrad/experiment/retime_plan.h"
#include "tetrad/experiment/run_hash.h"

namespace tetrad::experiment {
namespace {

TrainArgument argumentOf(const Setting& setting) {
  TrainArgument argument{std::string(setting.key->key), {}, setting.where, setting.table};
  if (setting.key->kind == ValueKind::kRawArguments) {
    argument.tokens = setting.values;
  } else if (setting.key->kind == ValueKind::kBoolean) {
    // A flag: present when true; false adds nothing (and leaves the hash).
    if (setting.values == std::vector<std::string>{"true"}) {
      argument.tokens.emplace_back(setting.key->flag);
    }
  } else {
    for (const std::string& value : setting.values) {
      argument.tokens.emplace_back(setting.key->flag);
      argument.tokens.push_back(value);
    }
  }
  return argument;
}

const Setting* lookup(const Settings& settings, std::string_view key) {
  auto it = settings.find(std::string(key));
  return it == settings.end() ? nullptr : &it->second;
}

template <typename Entry>
bool contains(const std::vector<Entry>& entries, const std::string& label) {
  return std::any_of(entries.begin(), entries.end(),
                     [&](const Entry& e) { return e.label == label; });
}

template <typename Entry>
std::string labelsOf(const std::vector<Entry>& entries) {
  std::string text;
  for (const Entry& e : entries) text += (text.empty() ? "" : ", ") + e.label;
  return text;
}

}  // namespace

RunPlan planRun(const SweepSpec& spec, int clusterIndex, int methodIndex, uint64_t seed,
                const Settings& overrides) {
  const ClusterEntry& cluster = spec.clusters[size_t(clusterIndex)];
  const MethodEntry& method = spec.methods[size_t(methodIndex)];
  RunPlan run;
  run.methodLabel = method.label;
  run.baseline16 = spec.baseline16;
  run.clusterLabel = cluster.label;
  run.methodIndex = methodIndex;
  run.clusterIndex = clusterIndex;
  run.seed = seed;
  run.mpi = cluster.mpi;
  run.workers = cluster.workers;
  run.mpirunArgs = cluster.mpirunArgs;
  run.methodWhere = method.where;
  const Setting seedSetting{findSettingKey("seed"),
                            {std::to_string(seed)},
                            spec.seedsWhere.line > 0 ? spec.seedsWhere : SourceRef{spec.file},
                            "[workload]"};
  for (const SettingKey& key : settingKeys()) {
    const Setting* setting = nullptr;
    if (key.key == "seed") {
      setting = &seedSetting;
    } else if ((setting = lookup(overrides, key.key)) == nullptr &&
               (setting = lookup(method.settings, key.key)) == nullptr &&
               (setting = lookup(cluster.settings, key.key)) == nullptr) {
      setting = lookup(spec.workload, key.key);
    }
    if (setting != nullptr) run.arguments.push_back(argumentOf(*setting));
  }
  run.hash = hashArguments(run.trainArgs());
  run.name = fmt::format("{}-{}-s{}-{}", method.label, cluster.label, seed, run.hash.substr(0, 8));
  return run;
}

std::vector<std::string> flattenArguments(const std::vector<TrainArgument>& arguments) {
  std::vector<std::string> tokens;
  for (const TrainArgument& argument : arguments) {
    tokens.insert(tokens.end(), argument.tokens.begin(), argument.tokens.end());
  }
  return tokens;
}

std::vector<std::string> RunPlan::trainArgs() const {
  return flattenArguments(arguments);
}

std::vector<RunPlan> planRuns(const SweepSpec& spec, const std::vector<std::string>& only,
                              const LrPicks& picks) {
  bool onlyMethods = false;
  bool onlyClusters = false;
  for (const std::string& label : only) {
    const bool isMethod = contains(spec.methods, label);
    const bool isCluster = contains(spec.clusters, label);
    TETRAD_CHECK(isMethod || isCluster, InvalidArgument,
                 "--only '{}': {} has no method or cluster with this label (methods: {}; "
                 "clusters: {})",
                 label, spec.file, labelsOf(spec.methods), labelsOf(spec.clusters));
    onlyMethods = onlyMethods || isMethod;
    onlyClusters = onlyClusters || isCluster;
  }
  auto selected = [&](const std::string& label, bool restricted) {
    return !restricted || std::find(only.begin(), only.end(), label) != only.end();
  };
  std::vector<RunPlan> runs;
  for (size_t c = 0; c < spec.clusters.size(); ++c) {
    if (!selected(spec.clusters[c].label, onlyClusters)) continue;
    for (size_t m = 0; m < spec.methods.size(); ++m) {
      const MethodEntry& method = spec.methods[m];
      if (!selected(method.label, onlyMethods)) continue;
      Settings overrides;
      const auto pick = picks.find(method.label);
      if (pick != picks.end()) {
        overrides["lr"] = Setting{findSettingKey("lr"),
                                  {pick->second},
                                  method.tuneLrWhere,
                                  fmt::format("[[method]] '{}' (tune_lr)", method.label)};
      }
      for (uint64_t seed : spec.seeds) {
        runs.push_back(planRun(spec, int(c), int(m), seed, overrides));
        if (pick != picks.end()) runs.back().lrTunedFrom = method.tuneLr;
      }
    }
  }
  markRetimedRuns(spec, runs);
  return runs;
}

bool RunPlan::hasFlag(const std::string& flag) const {
  const std::vector<std::string> args = trainArgs();
  return std::find(args.begin(), args.end(), flag) != args.end();
}

std::vector<std::string> childCommand(const RunPlan& run, const std::string& exe,
                                      const std::string& folder, const std::string& mpirun,
                                      int simThreads) {
  std::vector<std::string> command;
  if (!run.retimeOf.empty()) {
    const std::string source =
        (std::filesystem::path(folder).parent_path() / run.retimeOf).string();
    command = {exe, "retime", source};
    command.insert(command.end(), run.retimeArgs.begin(), run.retimeArgs.end());
    command.insert(command.end(), {"--out", folder, "--as-run"});
    return command;
  }
  if (run.mpi) {
    command = {mpirun, "-np", std::to_string(run.workers)};
    command.insert(command.end(), run.mpirunArgs.begin(), run.mpirunArgs.end());
  }
  command.push_back(exe);
  command.push_back("train");
  const std::vector<std::string> args = run.trainArgs();
  command.insert(command.end(), args.begin(), args.end());
  if (!run.mpi && simThreads > 0 && !run.hasFlag("--timing-only") &&
      !run.hasFlag("--sim-threads")) {
    command.insert(command.end(), {"--sim-threads", std::to_string(simThreads)});
  }
  command.insert(command.end(), {"--out", folder, "--name", run.name});
  return command;
}

}  // namespace tetrad::experiment
