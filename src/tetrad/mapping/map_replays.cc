#include "tetrad/mapping/map_replays.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/child_process.h"
#include "tetrad/experiment/run_hash.h"
#include "tetrad/train/timing/retime.h"

namespace tetrad::mapping {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// "# replays: 120 of 528 (23%), 1m 10s": after every tenth, and the last.
class Progress {
 public:
  explicit Progress(size_t total) : total_(total), start_(Clock::now()) {}
  void done() {
    ++done_;
    const size_t step = std::max<size_t>(1, total_ / 10);
    if (done_ % step != 0 && done_ != total_) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    std::printf("# replays: %zu of %zu (%.0f%%), %s\n", done_, total_,
                100.0 * double(done_) / double(total_), formatSeconds(elapsed).c_str());
    std::fflush(stdout);
  }

 private:
  size_t total_, done_ = 0;
  Clock::time_point start_;
};

MapReplayResult inProcess(const MapReplay& replay) {
  train::RetimeRequest request;
  request.run = replay.run;
  request.cluster = replay.cluster;
  request.netModel = replay.netModel;
  request.compute = replay.compute;
  request.toTarget = true;
  const train::RetimeOutcome outcome = train::retimeOrRefusal(request);
  MapReplayResult result;
  result.refusal = outcome.refusal;
  result.timeToTarget = outcome.timeToTarget >= 0 ? outcome.timeToTarget : NAN;
  result.timePerIteration = outcome.timePerIteration;
  return result;
}

// One result line (`tetrad retime --batch`'s output, or the cache's):
// {"refusal"} or {"time_to_target" (null: never reached), "time_per_iteration"}.
MapReplayResult resultOf(const nlohmann::json& j) {
  MapReplayResult r;
  if (j.contains("refusal")) {
    r.refusal = j["refusal"].get<std::string>();
  } else {
    if (j.at("time_to_target").is_number()) r.timeToTarget = j["time_to_target"].get<double>();
    r.timePerIteration = j.at("time_per_iteration").get<double>();
  }
  return r;
}

// The lines `tetrad retime --batch` printed for a shard, one JSON object per
// replay (the simulator's messages, on stderr, share the log).
std::vector<MapReplayResult> parseShardLog(const fs::path& logPath, size_t expected,
                                           const std::string& what) {
  std::ifstream in(logPath);
  std::vector<MapReplayResult> results;
  std::string text;
  while (std::getline(in, text)) {
    if (!text.starts_with("{\"")) continue;
    try {
      results.push_back(resultOf(nlohmann::json::parse(text)));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("map: {} printed an unreadable line ({}; log: {})", what, e.what(),
                              logPath.string()));
    }
  }
  TETRAD_CHECK(results.size() == expected, Error,
               "map: {} printed {} results for {} replays (log: {})", what, results.size(),
               expected, logPath.string());
  return results;
}

}  // namespace

std::vector<MapReplayResult> runMapReplays(const std::vector<MapReplay>& replays, int jobs,
                                           const std::string& exe, const std::string& thisBuild,
                                           const std::string& scratch) {
  TETRAD_CHECK(jobs >= 1, InvalidArgument, "--jobs {}: need at least 1", jobs);
  std::vector<MapReplayResult> results(replays.size());
  Progress progress(replays.size());
  // One at a time in this process when it is the binary asked for; else
  // (--replay-with another build) as that binary's children.
  // (tetrad-torch counts as the front end beside it: the same build.)
  std::error_code self, front;
  const bool thisBinary = (fs::equivalent(exe, "/proc/self/exe", self) && !self) ||
                          (fs::equivalent(exe, thisBuild, front) && !front);
  if (jobs == 1 && thisBinary) {
    for (size_t i = 0; i < replays.size(); ++i) {
      results[i] = inProcess(replays[i]);
      progress.done();
    }
    return results;
  }
  // Shards of consecutive replays (a method's cells, which cost alike), about
  // eight per job: one process each, `jobs` at a time.
  std::error_code ec;
  fs::create_directories(scratch, ec);
  TETRAD_CHECK(!ec, Error, "map: cannot create '{}' ({})", scratch, ec.message());
  const size_t shardSize =
      std::max<size_t>(1, (replays.size() + size_t(jobs) * 8 - 1) / (size_t(jobs) * 8));
  struct Running {
    size_t first, count;
    std::unique_ptr<experiment::ChildProcess> child;
    fs::path log;
  };
  std::vector<Running> running;
  size_t next = 0;
  while (next < replays.size() || !running.empty()) {
    while (next < replays.size() && int(running.size()) < jobs) {
      const size_t count = std::min(shardSize, replays.size() - next);
      const fs::path input = fs::path(scratch) / fmt::format("shard-{}.jsonl", next);
      {
        std::ofstream out(input);
        for (size_t i = next; i < next + count; ++i) {
          out << nlohmann::json{{"run", replays[i].run},
                                {"cluster", replays[i].cluster},
                                {"net_model", replays[i].netModel},
                                {"compute", replays[i].compute}}
                     .dump()
              << "\n";
        }
        TETRAD_CHECK(out.good(), Error, "map: cannot write '{}'", input.string());
      }
      const fs::path log = fs::path(scratch) / fmt::format("shard-{}.log", next);
      fs::remove(log, ec);
      const std::vector<std::string> argv = {exe, "retime", "--batch", input.string(),
                                             "--to-target"};
      running.push_back(
          {next, count, std::make_unique<experiment::ChildProcess>(argv, log.string()), log});
      next += count;
    }
    bool reaped = false;
    for (auto it = running.begin(); it != running.end();) {
      if (!it->child->poll()) {
        ++it;
        continue;
      }
      const std::string what =
          fmt::format("the retimes of {} and {} more", replays[it->first].run, it->count - 1);
      // On a failure the other children are killed as `running` goes out of scope.
      TETRAD_CHECK(it->child->exitStatus() == 0, Error, "map: {} failed (exit status {}): {}", what,
                   it->child->exitStatus(), experiment::tailOfFile(it->log.string(), 5));
      const std::vector<MapReplayResult> shard = parseShardLog(it->log, it->count, what);
      std::copy(shard.begin(), shard.end(), results.begin() + std::ptrdiff_t(it->first));
      for (size_t i = 0; i < it->count; ++i) progress.done();
      it = running.erase(it);
      reaped = true;
    }
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  fs::remove_all(scratch, ec);
  return results;
}

namespace {

std::string fileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The binary's identity: its size and modification time (a rebuild changes it).
std::string buildOf(const std::string& exe) {
  std::error_code ec;
  const auto size = fs::file_size(exe, ec);
  const auto time = fs::last_write_time(exe, ec).time_since_epoch().count();
  return fmt::format("{}-{}", ec ? 0 : size, ec ? 0 : time);
}

std::string keyOf(const MapReplay& r, const std::string& build) {
  const std::string text = fileText(fs::path(r.run) / "config.json") + '\0' +
                           fileText(fs::path(r.run) / "summary.json") + '\0' + r.cluster + '\0' +
                           r.netModel + '\0' + build +
                           (r.compute.empty() ? std::string() : '\0' + r.compute);
  return fmt::format("{:016x}", experiment::fnv1a64(text));
}

nlohmann::json lineOf(const std::string& key, const std::string& build, const MapReplayResult& r) {
  nlohmann::json j = {{"key", key}, {"build", build}};
  if (!r.refusal.empty()) {
    j["refusal"] = r.refusal;
  } else {
    j["time_to_target"] =
        std::isfinite(r.timeToTarget) ? nlohmann::json(r.timeToTarget) : nlohmann::json(nullptr);
    j["time_per_iteration"] = r.timePerIteration;
  }
  return j;
}

}  // namespace

std::vector<MapReplayResult> replayCached(const std::vector<MapReplay>& replays, int jobs,
                                          const std::string& exe, const std::string& thisBuild,
                                          const std::string& scratch,
                                          const std::string& cacheFile) {
  const std::string build = buildOf(exe);
  std::map<std::string, nlohmann::json> cache;  // key -> line, this build's only
  {
    std::ifstream in(cacheFile);
    std::string text;
    while (std::getline(in, text)) {
      try {
        nlohmann::json j = nlohmann::json::parse(text);
        if (j.value("build", "") != build) continue;
        // (The key first: json's operator= takes its argument by value.)
        const std::string key = j.at("key").get<std::string>();
        resultOf(j);  // a line without its fields is damaged too
        cache[key] = std::move(j);
      } catch (const nlohmann::json::exception&) {
        // A damaged line (an interrupted write, a hand edit) is replayed again.
      }
    }
  }
  std::vector<std::string> keys;
  std::vector<MapReplay> missing;
  std::vector<size_t> missingIndex;
  for (size_t i = 0; i < replays.size(); ++i) {
    keys.push_back(keyOf(replays[i], build));
    if (!cache.contains(keys.back())) {
      missing.push_back(replays[i]);
      missingIndex.push_back(i);
    }
  }
  std::printf(
      "# %zu replays (each run up to its target, on each cell): %zu from %s, %zu to run, "
      "%d at a time\n",
      replays.size(), replays.size() - missing.size(), cacheFile.c_str(), missing.size(), jobs);
  std::fflush(stdout);
  const std::vector<MapReplayResult> fresh =
      missing.empty() ? std::vector<MapReplayResult>{}
                      : runMapReplays(missing, jobs, exe, thisBuild, scratch);
  for (size_t m = 0; m < fresh.size(); ++m)
    cache[keys[missingIndex[m]]] = lineOf(keys[missingIndex[m]], build, fresh[m]);
  {
    const std::string temporary = cacheFile + ".tmp";
    std::ofstream out(temporary);
    for (const auto& [key, line] : cache) out << line.dump() << "\n";
    out.close();
    std::error_code ec;
    if (out.good()) fs::rename(temporary, cacheFile, ec);
  }
  std::vector<MapReplayResult> results(replays.size());
  for (size_t i = 0; i < replays.size(); ++i) results[i] = resultOf(cache.at(keys[i]));
  return results;
}

}  // namespace tetrad::mapping
