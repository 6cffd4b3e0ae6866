#include "tetrad/train/checkpoint/checkpoint_store.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tetrad/core/error.h"
#include "tetrad/train/data/partition.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "iter-";

// The checkpoint iterations present in `folder` (any completeness).
std::set<int64_t> iterationsIn(const std::string& folder) {
  std::set<int64_t> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string digits = name.substr(std::string(kPrefix).size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    found.insert(std::stoll(digits));
  }
  return found;
}

// Keys of config.json that do not change what a run computes, and the
// ones derived from the batch plan, which a resize may change
// (data/batch_plan.h): the global batch, the peak lr and the resize rule.
const std::set<std::string>& volatileKeys() {
  static const std::set<std::string> keys = {"name",
                                             "out",
                                             "timeout",
                                             "timeline",
                                             "stall_warn",
                                             "check_collectives",
                                             "checkpoint_every",
                                             "sim_threads",
                                             "global_batch_size",
                                             "peak_lr",
                                             "resize_batch"};
  return keys;
}

}  // namespace

CheckpointStore::CheckpointStore(std::string runFolder, int rank, int workers)
    : runFolder_(std::move(runFolder)), rank_(rank), workers_(workers) {}

std::string CheckpointStore::folder() const {
  return (fs::path(runFolder_) / "checkpoint").string();
}

std::string CheckpointStore::pathOf(int64_t iteration, int rank) const {
  return (fs::path(folder()) / fmt::format("{}{:06}", kPrefix, iteration) /
          fmt::format("rank-{:05}.ckpt", rank))
      .string();
}

void CheckpointStore::write(int64_t iteration, const CheckpointSections& sections) {
  const std::string path = pathOf(iteration, rank_);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  TETRAD_CHECK(!ec, Error, "rank {}: cannot create {}: {}", rank_,
               fs::path(path).parent_path().string(), ec.message());
  writeCheckpointFile(path, sections);
  // Keep this one and the `kept_ - 1` before it; remove this worker's older
  // files (and a folder once it is empty). Until this run has written that
  // many, nothing is removed (the checkpoint a resumed run started from
  // stays).
  written_.push_back(iteration);
  while (int(written_.size()) > kept_) written_.pop_front();
  if (int(written_.size()) < kept_) return;
  const int64_t oldestKept = written_.front();
  for (int64_t old : iterationsIn(folder())) {
    if (old >= oldestKept || old == iteration) continue;
    const fs::path file = pathOf(old, rank_);
    fs::remove(file, ec);
    fs::remove(fs::path(file.string() + ".tmp"), ec);
    // Rank 0 also removes the files of ranks this run does not have (left
    // by the run before an elastic resize).
    for (int lost = workers_; rank_ == 0; ++lost) {
      const fs::path extra = pathOf(old, lost);
      if (!fs::exists(extra)) break;
      fs::remove(extra, ec);
    }
    fs::remove(file.parent_path(), ec);  // fails (harmlessly) while not empty
  }
}

int64_t CheckpointStore::latestComplete() const {
  const std::set<int64_t> found = iterationsIn(folder());
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    bool complete = true;
    for (int r = 0; r < workers_ && complete; ++r) complete = fs::exists(pathOf(*it, r));
    if (complete) return *it;
  }
  return -1;
}

CheckpointAt CheckpointStore::latestCompleteOfAnySize() const {
  const std::set<int64_t> found = iterationsIn(folder());
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    if (!fs::exists(pathOf(*it, 0))) continue;
    // A damaged file is an error (InvalidArgument naming it), as it is for
    // a run of the same size: resuming silently from an older one would
    // hide it.
    const std::string origin = pathOf(*it, 0);
    const int workers = workersOfWorldText(readCheckpointFile(origin).getText("world", origin));
    bool complete = workers > 0;
    for (int r = 1; r < workers && complete; ++r) complete = fs::exists(pathOf(*it, r));
    if (complete) return {*it, workers};
  }
  return {};
}

int64_t CheckpointStore::newest() const {
  const std::set<int64_t> found = iterationsIn(folder());
  return found.empty() ? -1 : *found.rbegin();
}

CheckpointSections CheckpointStore::read(int64_t iteration) const {
  return readCheckpointFile(pathOf(iteration, rank_));
}

CheckpointSections CheckpointStore::readOf(int64_t iteration, int rank) const {
  return readCheckpointFile(pathOf(iteration, rank));
}

std::string worldText(int workers, int rank) {
  return fmt::format("{} workers, rank {}", workers, rank);
}

int workersOfWorldText(const std::string& text) {
  int workers = 0, rank = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d workers, rank %d%c", &workers, &rank, &tail) != 2) return 0;
  return workers > 0 && rank >= 0 && rank < workers ? workers : 0;
}

int workersOfRunFolder(const std::string& runFolder) {
  std::ifstream in(fs::path(runFolder) / "config.json");
  if (!in) return 0;
  const nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object() || !config.contains("workers") || !config["workers"].is_number_integer())
    return 0;
  return config["workers"].get<int>();
}

BatchPlan resumedBatchPlan(const std::string& runFolder, int workers, int batchSize,
                           const std::string& resizeBatch, size_t trainSamples) {
  const CheckpointStore store(runFolder, 0, 1);
  const CheckpointAt at = store.latestCompleteOfAnySize();
  if (at.iteration < 0) return {};
  const std::string origin = store.pathOf(at.iteration, 0);
  const CheckpointSections first = store.readOf(at.iteration, 0);
  BatchPlan plan;
  if (first.has("batch_plan")) {
    plan = batchPlanFromJson(first.getText("batch_plan", origin), origin);
  } else {
    const int recorded = workersOfRunFolder(runFolder);
    const int started = recorded > 0 ? recorded : at.workers;
    plan = uniformBatchPlan(int64_t(batchSize) * started,
                            stepsPerEpoch(trainSamples, started, batchSize));
  }
  if (at.workers == workers || resizeBatch == "global") return plan;
  return resizedBatchPlan(plan, at.iteration, int64_t(batchSize) * workers, trainSamples);
}

std::string runIdentity(const std::string& configJson) {
  nlohmann::json config = nlohmann::json::parse(configJson);
  for (const std::string& key : volatileKeys()) config.erase(key);
  return config.dump();  // nlohmann::json keeps keys sorted
}

std::string describeMismatch(const std::string& checkpointIdentity,
                             const std::string& currentIdentity) {
  const nlohmann::json saved = nlohmann::json::parse(checkpointIdentity);
  const nlohmann::json current = nlohmann::json::parse(currentIdentity);
  std::string differences;
  auto add = [&](const std::string& key, const std::string& here, const std::string& there) {
    if (!differences.empty()) differences += ", ";
    differences += fmt::format("{} {} (checkpoint: {})", key, here, there);
  };
  for (const auto& [key, value] : current.items()) {
    if (!saved.contains(key)) {
      add(key, value.dump(), "absent");
    } else if (saved[key] != value) {
      add(key, value.dump(), saved[key].dump());
    }
  }
  for (const auto& [key, value] : saved.items()) {
    if (!current.contains(key)) add(key, "absent", value.dump());
  }
  return differences;
}

}  // namespace tetrad::train
