#include "tetrad/experiment/lr_tuning.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tetrad/core/error.h"

namespace tetrad::experiment {
namespace {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

// True when `a` beats `b` (both with a value): the better metric, or on a
// tie the larger rate.
bool beats(const TuningPoint& a, const TuningPoint& b, TuneMetric metric) {
  if (a.metric != b.metric) {
    return metric == TuneMetric::kTestAccuracy ? a.metric > b.metric : a.metric < b.metric;
  }
  return std::stod(a.lr) > std::stod(b.lr);
}

ordered_json entryOf(const TuningResult& result, const std::vector<std::string>& runNames) {
  ordered_json entry;
  entry["method"] = result.method;
  entry["metric"] = std::string(tuneMetricName(result.metric));
  entry["budget"] = result.budget;
  entry["budget_iterations"] = result.budgetIterations;
  ordered_json grid = ordered_json::array();
  for (const TuningPoint& p : result.points) grid.push_back(p.lr);
  entry["grid"] = grid;
  entry["runs"] = runNames;
  entry["pick"] = result.pick;
  return entry;
}

std::string textOr(const ordered_json& entry, const char* key) {
  return entry.contains(key) && entry[key].is_string() ? entry[key].get<std::string>() : "";
}

double numberOr(const ordered_json& entry, const char* key) {
  return entry.contains(key) && entry[key].is_number() ? entry[key].get<double>() : 0;
}

ordered_json readIndex(const fs::path& path) {
  std::ifstream in(path);
  if (!in.good()) return ordered_json::object();
  ordered_json index = ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (index.is_discarded() || !index.is_object() || !index.contains("methods") ||
      !index["methods"].is_array()) {
    return ordered_json::object();
  }
  return index;
}

}  // namespace

std::string_view tuneMetricName(TuneMetric metric) {
  return metric == TuneMetric::kTestAccuracy ? "test_accuracy" : "train_loss";
}

bool tuneMetricFromName(std::string_view name, TuneMetric& metric) {
  if (name == "test_accuracy") {
    metric = TuneMetric::kTestAccuracy;
  } else if (name == "train_loss") {
    metric = TuneMetric::kTrainLoss;
  } else {
    return false;
  }
  return true;
}

std::vector<TuningPlan> planTuning(const SweepSpec& spec, const std::vector<std::string>& only,
                                   const RunLengthFn& runLength) {
  std::set<int> selected;
  for (const RunPlan& run : planRuns(spec, only)) selected.insert(run.methodIndex);
  std::vector<TuningPlan> plans;
  const uint64_t seed = spec.seeds.front();
  const std::string& cluster = spec.clusters.front().label;
  for (int m : selected) {
    const MethodEntry& method = spec.methods[size_t(m)];
    if (method.tuneLr.empty()) continue;
    const std::string table = fmt::format("[[method]] '{}'", method.label);
    const std::string blame =
        fmt::format("{}: key 'tune_lr' in {}", method.tuneLrWhere.toString(), table);
    const RunPlan base = planRun(spec, 0, m, seed);
    TETRAD_CHECK(!base.hasFlag("--timing-only"), InvalidArgument,
                 "{}: a timing-only run has no accuracy or loss to tune the learning rate by",
                 blame);
    TuningPlan plan;
    plan.method = method.label;
    plan.methodIndex = m;
    plan.grid = method.tuneLr;
    try {
      plan.fullIterations = runLength(base.trainArgs());
    } catch (const Error& e) {
      TETRAD_FAIL(InvalidArgument, "{}: cannot tell how many iterations its runs train: {}", blame,
                  e.what());
    }
    TETRAD_CHECK(plan.fullIterations > 0, InvalidArgument,
                 "{}: its runs train {} iterations: nothing to tune on", blame,
                 plan.fullIterations);
    plan.budgetIterations = std::max<int64_t>(
        1, int64_t(std::ceil(spec.tuneBudget * double(plan.fullIterations) - 1e-9)));
    const SourceRef budgetWhere =
        spec.tuneBudgetWhere.line > 0 ? spec.tuneBudgetWhere : method.tuneLrWhere;
    for (const std::string& lr : method.tuneLr) {
      Settings overrides;
      overrides["lr"] =
          Setting{findSettingKey("lr"), {lr}, method.tuneLrWhere, table + " (tune_lr)"};
      overrides["max_iters"] = Setting{findSettingKey("max_iters"),
                                       {std::to_string(plan.budgetIterations)},
                                       budgetWhere,
                                       "[workload] (tune_budget)"};
      RunPlan run = planRun(spec, 0, m, seed, overrides);
      run.phase = "tuning";
      run.tuneMetric = std::string(tuneMetricName(spec.tuneMetric));
      run.name =
          fmt::format("{}-lr{}-{}-s{}-{}", method.label, lr, cluster, seed, run.hash.substr(0, 8));
      plan.runs.push_back(std::move(run));
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

double metricOf(const RunRecord& record, TuneMetric metric) {
  if (record.status != "ok") return kMissing;
  return metric == TuneMetric::kTestAccuracy ? record.finalAccuracy
                                             : readLastTrainLoss(record.folder);
}

std::string pickRate(const std::vector<TuningPoint>& points, TuneMetric metric) {
  const TuningPoint* best = nullptr;
  for (const TuningPoint& p : points) {
    if (std::isnan(p.metric)) continue;
    if (best == nullptr || beats(p, *best, metric)) best = &p;
  }
  return best == nullptr ? "" : best->lr;
}

TuningResult readTuning(const TuningPlan& plan, const std::string& tuningDir, TuneMetric metric,
                        double budget) {
  TuningResult result;
  result.method = plan.method;
  result.metric = metric;
  result.budget = budget;
  result.budgetIterations = plan.budgetIterations;
  result.complete = true;
  for (size_t i = 0; i < plan.runs.size() && i < plan.grid.size(); ++i) {
    TuningPoint point;
    point.lr = plan.grid[i];
    point.record = readRunFolder((fs::path(tuningDir) / plan.runs[i].name).string());
    point.status = point.record.status;
    point.metric = metricOf(point.record, metric);
    result.complete = result.complete && (point.status == "ok" || point.status == "diverged");
    result.points.push_back(std::move(point));
  }
  if (result.complete) result.pick = pickRate(result.points, metric);
  return result;
}

void writeTuningIndex(const std::vector<TuningResult>& results, const std::string& tuningDir) {
  const fs::path path = fs::path(tuningDir) / kTuningIndex;
  ordered_json index = readIndex(path);
  ordered_json methods = index.contains("methods") ? index["methods"] : ordered_json::array();
  for (const TuningResult& result : results) {
    std::vector<std::string> names;
    for (const TuningPoint& p : result.points) names.push_back(p.record.name);
    const ordered_json entry = entryOf(result, names);
    auto same = [&](const ordered_json& e) {
      return e.is_object() && textOr(e, "method") == result.method;
    };
    auto it = std::find_if(methods.begin(), methods.end(), same);
    if (it != methods.end()) {
      *it = entry;
    } else {
      methods.push_back(entry);
    }
  }
  index["methods"] = methods;
  std::ofstream out(path, std::ios::trunc);
  out << index.dump(2) << '\n';
  out.close();
  TETRAD_CHECK(out.good(), Error, "cannot write {}", path.string());
}

std::vector<TuningResult> readTuningIndex(const std::string& sweepDir) {
  const fs::path dir = fs::path(sweepDir) / kTuningFolder;
  const ordered_json index = readIndex(dir / kTuningIndex);
  std::vector<TuningResult> results;
  if (!index.contains("methods")) return results;
  for (const ordered_json& entry : index["methods"]) {
    if (!entry.is_object() || !entry.contains("grid") || !entry.contains("runs")) continue;
    TuningPlan plan;
    plan.method = textOr(entry, "method");
    plan.budgetIterations = int64_t(numberOr(entry, "budget_iterations"));
    if (!entry["grid"].is_array() || !entry["runs"].is_array()) continue;
    for (const ordered_json& lr : entry["grid"]) {
      if (lr.is_string()) plan.grid.push_back(lr.get<std::string>());
    }
    for (const ordered_json& name : entry["runs"]) {
      if (!name.is_string()) continue;
      RunPlan run;
      run.name = name.get<std::string>();
      plan.runs.push_back(std::move(run));
    }
    TuneMetric metric = TuneMetric::kTestAccuracy;
    tuneMetricFromName(textOr(entry, "metric"), metric);
    results.push_back(readTuning(plan, dir.string(), metric, numberOr(entry, "budget")));
  }
  return results;
}

std::vector<TuningResult> readTuningResults(const std::vector<TuningPlan>& plans,
                                            const SweepSpec& spec, const std::string& sweepDir) {
  const std::string dir = (fs::path(sweepDir) / kTuningFolder).string();
  std::vector<TuningResult> results;
  for (const TuningPlan& plan : plans) {
    results.push_back(readTuning(plan, dir, spec.tuneMetric, spec.tuneBudget));
  }
  return results;
}

TuningOutcome runTuning(const std::vector<TuningPlan>& plans, const SweepSpec& spec,
                        const SweepOptions& options, std::FILE* progress) {
  TuningOutcome outcome;
  std::vector<RunPlan> runs;
  for (const TuningPlan& plan : plans) runs.insert(runs.end(), plan.runs.begin(), plan.runs.end());
  if (runs.empty()) return outcome;
  SweepOptions tuning = options;
  tuning.outDir = (fs::path(options.outDir) / kTuningFolder).string();
  tuning.phase = "lr tuning";
  outcome.sweep = runSweep(runs, tuning, progress);
  outcome.results = readTuningResults(plans, spec, options.outDir);
  writeTuningIndex(outcome.results, tuning.outDir);
  for (size_t i = 0; i < plans.size(); ++i) {
    const TuningResult& result = outcome.results[i];
    const MethodEntry& method = spec.methods[size_t(plans[i].methodIndex)];
    std::string grid;
    for (const TuningPoint& p : result.points) {
      grid += fmt::format("{}{} {}", grid.empty() ? "" : ", ", p.lr,
                          std::isnan(p.metric) ? p.status : fmt::format("{:.4f}", p.metric));
    }
    if (!result.complete) {
      outcome.unfinished.push_back(result.method);
    } else if (result.pick.empty()) {
      outcome.noPick.push_back(fmt::format(
          "{}: key 'tune_lr' in [[method]] '{}': no rate of the grid gave a {} ({}): try "
          "smaller rates",
          method.tuneLrWhere.toString(), result.method, tuneMetricName(result.metric), grid));
    } else {
      outcome.picks[result.method] = result.pick;
    }
    if (progress != nullptr) {
      std::fputs(fmt::format("tetrad run: lr tuning of {} by {} after {} iterations: {}; pick {}\n",
                             result.method, tuneMetricName(result.metric), result.budgetIterations,
                             grid, result.pick.empty() ? "none" : result.pick)
                     .c_str(),
                 progress);
    }
  }
  return outcome;
}

}  // namespace tetrad::experiment
