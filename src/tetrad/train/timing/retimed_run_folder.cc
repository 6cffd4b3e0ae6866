#include "tetrad/train/timing/retimed_run_folder.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

Json readObject(const fs::path& file) {
  std::ifstream in(file);
  TETRAD_CHECK(in.good(), InvalidArgument, "retime: cannot read {}", file.string());
  Json j = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  TETRAD_CHECK(!j.is_discarded() && j.is_object(), InvalidArgument,
               "retime: {} is not a JSON object", file.string());
  return j;
}

std::vector<Json> readLines(const fs::path& file) {
  std::ifstream in(file);
  TETRAD_CHECK(in.good(), InvalidArgument, "retime: cannot read {}", file.string());
  std::vector<Json> lines;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty()) continue;
    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    TETRAD_CHECK(!j.is_discarded() && j.is_object(), InvalidArgument,
                 "retime: {} line {} is not a JSON object", file.string(), lines.size() + 1);
    lines.push_back(std::move(j));
  }
  return lines;
}

void writeText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::trunc);
  out << text;
  out.close();
  TETRAD_CHECK(out.good(), Error, "retime: cannot write {}", file.string());
}

// Fields of a run that depend only on the trajectory (the same on every
// network) and that the replay cannot know: taken from the original.
constexpr const char* kTrajectoryFields[] = {
    "status",          "error",          "skipped_steps",        "final_test_accuracy",
    "final_test_loss", "target_accuracy", "iterations_to_target", "final_rank0_test_accuracy",
    "final_consensus_distance", "compression_error"};

// Fields of a metrics line that come from the clock or the byte counters.
constexpr const char* kClockFields[] = {"sim_time",   "wall_time",    "bytes_sent",
                                        "bytes_received", "compute_time", "comm_time"};

}  // namespace

void writeRetimedRunFolder(const std::string& original, const std::string& replay,
                           const std::string& out, double timeToTarget) {
  const fs::path from(original), timed(replay), to(out);

  // config.json: the original's, on the replay's network.
  Json config = readObject(from / "config.json");
  const Json replayConfig = readObject(timed / "config.json");
  for (const char* key : {"cluster", "net_model", "sim_config", "compute", "engine"}) {
    if (replayConfig.contains(key)) config[key] = replayConfig[key];
  }
  config["retimed_from"] = original;
  writeText(to / "config.json", config.dump(2) + "\n");

  // summary.json: the replay's times with the original's trajectory.
  const Json originalSummary = readObject(from / "summary.json");
  Json summary = readObject(timed / "summary.json");
  summary.erase("timing_only");
  for (const char* key : kTrajectoryFields) {
    if (originalSummary.contains(key)) {
      summary[key] = originalSummary[key];
    } else {
      summary.erase(key);
    }
  }
  summary["time_to_target"] = timeToTarget >= 0 ? Json(timeToTarget) : Json(nullptr);
  summary["folder"] = out;
  summary["retimed_from"] = original;
  summary["replay"] = (to / "timing-only").string() == replay ? "timing-only" : replay;
  writeText(to / "summary.json", summary.dump(2) + "\n");

  // metrics.jsonl: the original's lines on the replay's clock.
  std::map<std::pair<std::string, int64_t>, Json> clock;
  for (const Json& line : readLines(timed / "metrics.jsonl")) {
    if (!line.contains("iteration") || !line["iteration"].is_number_integer()) continue;
    clock[{line.value("kind", ""), line["iteration"].get<int64_t>()}] = line;
  }
  std::string text;
  for (Json line : readLines(from / "metrics.jsonl")) {
    const bool keyed = line.contains("iteration") && line["iteration"].is_number_integer();
    auto twin = keyed ? clock.find({line.value("kind", ""), line["iteration"].get<int64_t>()})
                      : clock.end();
    for (const char* key : kClockFields) {
      if (!line.contains(key)) continue;
      if (twin != clock.end() && twin->second.contains(key)) {
        line[key] = twin->second[key];
      } else if (std::string(key) == "sim_time") {
        line[key] = nullptr;
      }
    }
    text += line.dump() + "\n";
  }
  writeText(to / "metrics.jsonl", text);
}

}  // namespace tetrad::train
