#include "tetrad/experiment/run_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <tuple>

namespace tetrad::experiment {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// The JSON object in `path`, or null when absent or malformed.
json readJson(const fs::path& path) {
  std::ifstream in(path);
  if (!in.good()) return nullptr;
  json value = json::parse(in, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() || !value.is_object() ? json(nullptr) : value;
}

double numberOr(const json& object, const char* key) {
  if (!object.is_object()) return kMissing;
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : kMissing;
}

std::string stringOr(const json& object, const char* key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return fallback;
}

// Mean of a per-rank array, NaN when absent or empty.
double meanOf(const json& object, const char* key) {
  if (!object.is_object()) return kMissing;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array() || it->empty()) return kMissing;
  double sum = 0;
  for (const json& value : *it) {
    if (!value.is_number()) return kMissing;
    sum += value.get<double>();
  }
  return sum / double(it->size());
}

// summary.json's "status" (absent in older summaries: finished).
std::string statusOf(const fs::path& dir, const json& summary) {
  if (summary.is_null()) {
    return fs::exists(dir / "train.log") || fs::exists(dir / "metrics.jsonl") ? "failed"
                                                                              : "not run";
  }
  const std::string status = stringOr(summary, "status", "finished");
  if (status == "diverged" || status == "interrupted") return status;
  return "ok";
}

}  // namespace

std::string runStatus(const std::string& folder) {
  const fs::path dir(folder);
  return statusOf(dir, readJson(dir / "summary.json"));
}

bool runDone(const std::string& folder) {
  const std::string status = runStatus(folder);
  return status == "ok" || status == "diverged";
}

RunRecord readRunFolder(const std::string& folder) {
  const fs::path dir(folder);
  const json run = readJson(dir / "run.json");
  const json config = readJson(dir / "config.json");
  const json summary = readJson(dir / "summary.json");
  RunRecord r;
  r.folder = folder;
  r.name = dir.filename().string();
  r.status = statusOf(dir, summary);
  // The configuration: summary first (what ran), then config.json.
  auto field = [&](const char* key) { return stringOr(summary, key, stringOr(config, key, "")); };
  r.sync = field("sync");
  r.arch = field("arch");
  r.compress = field("compress");
  r.sched = field("sched");
  r.model = field("model");
  r.data = field("data");
  r.clusterSpec = field("cluster");
  r.engine = stringOr(summary, "engine", "");
  r.netModel = stringOr(config, "net_model", "");
  double workers = numberOr(summary, "workers");
  if (std::isnan(workers)) workers = numberOr(config, "workers");
  r.workers = std::isnan(workers) ? 0 : int(workers);
  const double seed = numberOr(run, "seed");
  r.seed = !std::isnan(seed)                       ? uint64_t(seed)
           : !std::isnan(numberOr(config, "seed")) ? uint64_t(numberOr(config, "seed"))
                                                   : 0;
  r.method = stringOr(run, "method", "");
  r.cluster = stringOr(run, "cluster", "");
  if (r.method.empty()) r.method = fmt::format("{} {} {} {}", r.sync, r.arch, r.compress, r.sched);
  if (r.cluster.empty()) r.cluster = fmt::format("{} ({} workers)", r.clusterSpec, r.workers);
  const double methodIndex = numberOr(run, "method_index");
  const double clusterIndex = numberOr(run, "cluster_index");
  r.methodIndex = std::isnan(methodIndex) ? -1 : int(methodIndex);
  r.clusterIndex = std::isnan(clusterIndex) ? -1 : int(clusterIndex);
  r.hash = stringOr(run, "hash", "");

  const double iterations = numberOr(summary, "iterations");
  r.iterations = std::isnan(iterations) ? 0 : int64_t(iterations);
  const double globalBatch = numberOr(summary, "global_batch_size");
  r.globalBatch = std::isnan(globalBatch) ? 0 : int64_t(globalBatch);
  r.finalAccuracy = numberOr(summary, "final_test_accuracy");
  r.targetAccuracy = numberOr(summary, "target_accuracy");
  if (std::isnan(r.targetAccuracy)) r.targetAccuracy = numberOr(config, "target_accuracy");
  r.timeToTarget = numberOr(summary, "time_to_target");
  r.iterationsToTarget = numberOr(summary, "iterations_to_target");
  r.trainTime = numberOr(summary, "train_time");
  r.wallTime = numberOr(summary, "wall_time");
  r.throughput = numberOr(summary, "throughput_samples_per_s");
  if (summary.is_object() && summary.contains("compression_error")) {
    r.compressionError = numberOr(summary["compression_error"], "ratio");
  }
  r.computeTime = meanOf(summary, "compute_time_per_rank");
  r.commTime = meanOf(summary, "comm_time_per_rank");
  // Runs from before codec charging have none: they charged no codec time.
  r.codecTime = summary.is_object() && !summary.contains("codec_time_per_rank")
                    ? 0.0
                    : meanOf(summary, "codec_time_per_rank");
  r.lr = numberOr(config, "lr");
  r.momentum = numberOr(config, "momentum");
  r.bucketBytes = numberOr(config, "bucket_bytes");
  r.phase = stringOr(run, "phase", "");
  r.retimedFrom = stringOr(run, "retimed_from", stringOr(summary, "retimed_from", ""));
  r.baseline16 = stringOr(run, "baseline16", "");
  if (run.is_object() && run.contains("lr_tuned_from") && run["lr_tuned_from"].is_array()) {
    for (const json& rate : run["lr_tuned_from"]) {
      if (!r.lrTunedFrom.empty()) r.lrTunedFrom += ';';
      r.lrTunedFrom += stringOr(json{{"v", rate}}, "v", "");
    }
  }
  const double bytesSent = meanOf(summary, "bytes_sent_per_rank");
  if (r.iterations > 0) r.bytesPerWorkerIter = bytesSent / double(r.iterations);

  json extra = json::object();
  for (const char* key : {"staleness_histogram", "bytes_sent_by_role", "resizes", "elastic"}) {
    if (summary.is_object() && summary.contains(key)) extra[key] = summary[key];
  }
  if (!extra.empty()) r.extraJson = extra.dump();
  if (extra.contains("resizes") && extra["resizes"].is_array()) {
    for (const json& resize : extra["resizes"]) {
      const double iteration = numberOr(resize, "iteration");
      const double from = numberOr(resize, "from"), to = numberOr(resize, "to");
      if (std::isnan(iteration) || std::isnan(from) || std::isnan(to)) continue;
      r.resizes.push_back({int64_t(iteration), int(from), int(to), numberOr(resize, "train_time")});
    }
  }
  return r;
}

std::vector<RunRecord> readRunFolders(const std::string& dir) {
  std::vector<RunRecord> records;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory()) continue;
    const fs::path p = entry.path();
    if (fs::exists(p / "run.json") || fs::exists(p / "config.json") ||
        fs::exists(p / "summary.json")) {
      records.push_back(readRunFolder(p.string()));
    }
  }
  // Sweep order first (folders without run.json last, by name).
  auto key = [](const RunRecord& r) {
    const int cluster = r.clusterIndex < 0 ? 1 << 30 : r.clusterIndex;
    const int method = r.methodIndex < 0 ? 1 << 30 : r.methodIndex;
    return std::tuple(cluster, r.cluster, method, r.method, r.seed, r.name);
  };
  std::sort(records.begin(), records.end(),
            [&](const RunRecord& a, const RunRecord& b) { return key(a) < key(b); });
  return records;
}

std::vector<EvalPoint> readEvalCurve(const std::string& folder) {
  std::vector<EvalPoint> points;
  std::ifstream in(std::filesystem::path(folder) / "metrics.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const json record = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded() || !record.is_object()) continue;
    if (stringOr(record, "kind", "") != "eval") continue;
    EvalPoint point;
    const double iteration = numberOr(record, "iteration");
    point.iteration = std::isnan(iteration) ? 0 : int64_t(iteration);
    point.time = numberOr(record, "sim_time");
    point.accuracy = numberOr(record, "accuracy");
    point.bytesSent = numberOr(record, "bytes_sent");
    if (std::isnan(point.time) || std::isnan(point.accuracy)) continue;
    if (std::isnan(point.bytesSent)) point.bytesSent = 0;
    points.push_back(point);
  }
  return points;
}

double readLastTrainLoss(const std::string& folder) {
  double loss = kMissing;
  std::ifstream in(std::filesystem::path(folder) / "metrics.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const json record = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded() || !record.is_object()) continue;
    if (stringOr(record, "kind", "") == "train") loss = numberOr(record, "loss");
  }
  return loss;
}

}  // namespace tetrad::experiment
