// Running the validation set's timing-only predictions (validation_run.h).
#include "tetrad/experiment/validation_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "tetrad/core/error.h"
#include "tetrad/experiment/child_process.h"

namespace tetrad::experiment {
namespace {

namespace fs = std::filesystem;

double readThroughput(const std::string& runDir) {
  std::ifstream in(fs::path(runDir) / "summary.json");
  if (!in.good()) return 0;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    return j.value("throughput_samples_per_s", 0.0);
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
}

}  // namespace

std::vector<std::string> validationRunArgs(const ValidationPoint& p, const std::string& runDir,
                                           int iterations) {
  const int workers = p.devices();
  std::vector<std::string> args = {
      "train",           "--timing-only",
      "--engine",        "analytic",
      "--model",         p.model,
      "--batch-size",    std::to_string(p.batch),
      "--compute",       fmt::format("throughput:{}", p.single),
      "--cluster",       p.cluster,
      "--workers",       std::to_string(workers),
      "--data",          "synthetic",
      "--train-samples", std::to_string(int64_t(p.batch) * workers * (iterations + 1)),
      "--max-iters",     std::to_string(iterations),
      "--out",           runDir,
      "--quiet"};
  // cm02 unless the point names its network model (tcp: docs/validation.md).
  if (std::find(p.args.begin(), p.args.end(), "--net-model") == p.args.end()) {
    args.insert(args.end(), {"--net-model", "cm02"});
  }
  // DDP's buckets overlapped with the backward pass unless the point names
  // its own schedule.
  if (std::find(p.args.begin(), p.args.end(), "--sched") == p.args.end()) {
    args.insert(args.end(), {"--sched", "ddp"});
  }
  args.insert(args.end(), p.args.begin(), p.args.end());
  return args;
}

std::vector<ValidationResult> predictValidationSet(const std::vector<ValidationPoint>& points,
                                                   const ValidationOptions& options) {
  TETRAD_CHECK(options.jobs >= 1, InvalidArgument, "--jobs must be >= 1, got {}", options.jobs);
  fs::create_directories(fs::path(options.outDir) / "runs");
  std::vector<ValidationResult> results(points.size());
  std::vector<std::string> dirs(points.size());
  std::map<size_t, std::unique_ptr<ChildProcess>> running;
  size_t next = 0;
  auto reap = [&](size_t i) {
    ValidationResult& r = results[i];
    r.point = &points[i];
    r.throughput = readThroughput(dirs[i]);
    if (running[i]->exitStatus() != 0 || r.throughput <= 0) {
      r.error = tailOfFile(dirs[i] + ".log", 1);
      while (!r.error.empty() && (r.error.back() == '\n' || r.error.back() == '\r')) {
        r.error.pop_back();
      }
      if (r.error.empty()) r.error = fmt::format("exit status {}", running[i]->exitStatus());
    }
  };
  while (next < points.size() || !running.empty()) {
    while (next < points.size() && int(running.size()) < options.jobs) {
      dirs[next] = (fs::path(options.outDir) / "runs" / points[next].id).string();
      fs::remove_all(dirs[next]);
      std::vector<std::string> argv = {options.program};
      for (std::string& a : validationRunArgs(points[next], dirs[next], options.iterations)) {
        argv.push_back(std::move(a));
      }
      fs::remove(dirs[next] + ".log");
      running[next] = std::make_unique<ChildProcess>(argv, dirs[next] + ".log");
      ++next;
    }
    bool any = false;
    for (auto it = running.begin(); it != running.end();) {
      if (it->second->poll()) {
        reap(it->first);
        it = running.erase(it);
        any = true;
      } else {
        ++it;
      }
    }
    if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::map<std::string, const ValidationResult*> byId;
  for (const ValidationResult& r : results) byId[r.point->id] = &r;
  for (ValidationResult& r : results) {
    const ValidationPoint& p = *r.point;
    if (!r.error.empty()) continue;
    if (p.metric == "throughput") {
      r.predicted = r.throughput;
    } else if (p.metric == "efficiency") {
      r.predicted = r.throughput / (p.devices() * p.single);
    } else if (p.metric == "iteration_time") {
      r.predicted = double(p.batch) * p.devices() / r.throughput;
    } else {
      const ValidationResult& base = *byId.at(p.baseline);
      if (!base.error.empty()) {
        r.error = "its baseline " + p.baseline + " failed";
        continue;
      }
      r.predicted = r.throughput / base.throughput;
      r.signRight = (r.predicted > 1) == (p.published > 1) ? 1 : 0;
    }
    r.relativeError = (r.predicted - p.published) / p.published;
  }
  return results;
}

}  // namespace tetrad::experiment
