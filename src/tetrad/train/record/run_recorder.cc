#include "tetrad/train/record/run_recorder.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"

namespace tetrad::train {

RunRecorder::RunRecorder(std::string folder, bool progress, bool resume)
    : folder_(std::move(folder)), progress_(progress) {
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  TETRAD_CHECK(!ec && std::filesystem::is_directory(folder_), InvalidArgument,
               "cannot create the run folder '{}' ({}); pass --out DIR", folder_, ec.message());
  std::string path = (std::filesystem::path(folder_) / "metrics.jsonl").string();
  metrics_.open(path, resume ? std::ios::app : std::ios::trunc);
  TETRAD_CHECK(metrics_.good(), InvalidArgument, "cannot write '{}'", path);
}

uint64_t RunRecorder::metricsBytes() {
  // The file's size, not tellp(): an append-mode stream reports 0 until its
  // first write after (re)opening.
  metrics_.flush();
  std::error_code ec;
  const uintmax_t size =
      std::filesystem::file_size(std::filesystem::path(folder_) / "metrics.jsonl", ec);
  TETRAD_CHECK(!ec, Error, "cannot read the size of {}/metrics.jsonl: {}", folder_, ec.message());
  return uint64_t(size);
}

void RunRecorder::resumeMetricsAt(uint64_t bytes) {
  const std::filesystem::path path = std::filesystem::path(folder_) / "metrics.jsonl";
  metrics_.close();
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  TETRAD_CHECK(!ec && size >= bytes, InvalidArgument,
               "--resume {}: metrics.jsonl has {} bytes, the checkpoint was taken after {}",
               folder_, ec ? 0 : size, bytes);
  std::filesystem::resize_file(path, bytes, ec);
  TETRAD_CHECK(!ec, InvalidArgument, "--resume {}: cannot cut metrics.jsonl back: {}", folder_,
               ec.message());
  metrics_.open(path, std::ios::app);
  TETRAD_CHECK(metrics_.good(), InvalidArgument, "cannot append to '{}'", path.string());
}

RunRecorder::~RunRecorder() {
  endProgress();
}

void RunRecorder::writeFile(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::path(folder_) / name).string();
  std::ofstream out(path, std::ios::trunc);
  out << text << '\n';
  out.close();
  TETRAD_CHECK(out.good(), InvalidArgument, "cannot write '{}'", path);
}

void RunRecorder::writeConfig(const std::string& json) {
  writeFile("config.json", json);
}
void RunRecorder::writeSummary(const std::string& json) {
  writeFile("summary.json", json);
}

void RunRecorder::recordNote(const std::string& kind, int64_t iteration, double simTime,
                             const std::string& fields) {
  nlohmann::ordered_json j;
  j["kind"] = kind;
  j["iteration"] = iteration;
  j["sim_time"] = simTime;
  const nlohmann::ordered_json extra =
      nlohmann::ordered_json::parse(fields, nullptr, /*allow_exceptions=*/false);
  if (extra.is_object()) {
    for (const auto& [key, value] : extra.items()) j[key] = value;
  }
  metrics_ << j.dump() << '\n';
  metrics_.flush();
  TETRAD_CHECK(metrics_.good(), Error, "cannot append to {}/metrics.jsonl", folder_);
}

void RunRecorder::record(const MetricsRecord& r) {
  nlohmann::ordered_json j;
  j["kind"] = r.kind;
  j["iteration"] = r.iteration;
  j["epoch"] = r.epoch;
  j["sim_time"] = r.simTime;
  j["wall_time"] = r.wallTime;
  j["loss"] = r.loss;
  j["accuracy"] = r.accuracy;
  j["lr"] = r.lr;
  j["bytes_sent"] = r.bytesSent;
  j["bytes_received"] = r.bytesReceived;
  j["compute_time"] = r.computeTime;
  j["comm_time"] = r.commTime;
  j["codec_time"] = r.codecTime;
  if (r.consensusDistance >= 0) j["consensus_distance"] = r.consensusDistance;
  if (r.ownAccuracy >= 0) j["rank0_accuracy"] = r.ownAccuracy;
  if (r.skippedSteps >= 0) j["skipped_steps"] = r.skippedSteps;
  if (r.meanStaleness >= 0) {
    j["mean_staleness"] = r.meanStaleness;
    j["max_staleness"] = r.maxStaleness;
  }
  metrics_ << j.dump() << '\n';
  metrics_.flush();
  TETRAD_CHECK(metrics_.good(), Error, "cannot append to {}/metrics.jsonl", folder_);
}

void RunRecorder::progress(const std::string& line, bool force) {
  if (!progress_) return;
  // On a terminal the line rewrites itself (at most once a second); in a log
  // file each is a new line (at most one per 10 seconds).
  bool tty = isatty(fileno(stderr));
  auto now = std::chrono::steady_clock::now();
  if (!force && now - lastProgress_ < std::chrono::seconds(tty ? 1 : 10)) return;
  lastProgress_ = now;
  std::fprintf(stderr, tty ? "\r\033[K%s" : "%s\n", line.c_str());
  std::fflush(stderr);
  progressOpen_ = tty;
}

void RunRecorder::endProgress() {
  if (progressOpen_) {
    std::fputc('\n', stderr);
    std::fflush(stderr);
    progressOpen_ = false;
  }
}

}  // namespace tetrad::train
