#include "tetrad/experiment/sweep_runner.h"

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/child_process.h"
#include "tetrad/experiment/results_table.h"
#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr int kLogTailLines = 12;
constexpr int kConfigErrorStatus = 2;  // `tetrad train`: bad input

std::string duration(double seconds) {
  const long s = long(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

void writeRunJson(const RunPlan& run, const std::string& folder, const std::string& sweepFile,
                  const std::vector<std::string>& command) {
  nlohmann::ordered_json j;
  j["method"] = run.methodLabel;
  j["cluster"] = run.clusterLabel;
  j["method_index"] = run.methodIndex;
  j["cluster_index"] = run.clusterIndex;
  j["seed"] = run.seed;
  j["hash"] = run.hash;
  j["sweep"] = sweepFile;
  j["train_args"] = run.trainArgs();
  j["command"] = command;
  if (!run.phase.empty()) j["phase"] = run.phase;
  if (!run.tuneMetric.empty()) j["tune_metric"] = run.tuneMetric;
  if (!run.lrTunedFrom.empty()) j["lr_tuned_from"] = run.lrTunedFrom;
  if (!run.retimeOf.empty()) j["retimed_from"] = run.retimeOf;
  if (!run.baseline16.empty()) j["baseline16"] = run.baseline16;
  std::ofstream out(fs::path(folder) / "run.json", std::ios::trunc);
  out << j.dump(2) << '\n';
  out.close();
  TETRAD_CHECK(out.good(), Error, "cannot write {}/run.json", folder);
}

// A done run keeps its folder, but how this sweep chose its lr may have
// changed (a new tune_lr grid with the same pick): run.json's
// lr_tuned_from follows the plan.
void refreshTunedFrom(const RunPlan& run, const std::string& folder) {
  const fs::path path = fs::path(folder) / "run.json";
  std::ifstream in(path);
  if (!in.good()) return;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(in, nullptr, false);
  in.close();
  if (j.is_discarded() || !j.is_object()) return;
  const nlohmann::ordered_json wanted = run.lrTunedFrom.empty()
                                            ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json(run.lrTunedFrom);
  const nlohmann::ordered_json had = j.contains("lr_tuned_from") ? j["lr_tuned_from"] : nullptr;
  if (had == wanted) return;
  if (run.lrTunedFrom.empty()) {
    j.erase("lr_tuned_from");
  } else {
    j["lr_tuned_from"] = wanted;
  }
  std::ofstream out(path, std::ios::trunc);
  out << j.dump(2) << '\n';
  out.close();
  TETRAD_CHECK(out.good(), Error, "cannot write {}", path.string());
}

// The "tetrad: error: ..." line of a log, or its last non-empty line.
std::string errorLine(const std::string& logTail) {
  std::string last;
  size_t start = 0;
  while (start < logTail.size()) {
    size_t end = logTail.find('\n', start);
    if (end == std::string::npos) end = logTail.size();
    const std::string line = logTail.substr(start, end - start);
    if (const size_t at = line.find("error: "); at != std::string::npos) {
      return line.substr(at + 7);
    }
    if (!line.empty()) last = line;
    start = end + 1;
  }
  return last;
}

struct Running {
  size_t index;
  std::unique_ptr<ChildProcess> child;
  Clock::time_point started;
};

class SweepRunner {
 public:
  SweepRunner(const std::vector<RunPlan>& runs, const SweepOptions& options, std::FILE* progress)
      : runs_(runs), options_(options), progress_(progress) {}

  SweepOutcome run() {
    std::error_code ec;
    fs::create_directories(options_.outDir, ec);
    TETRAD_CHECK(!ec && fs::is_directory(options_.outDir), InvalidArgument,
                 "cannot create the output folder '{}' ({})", options_.outDir, ec.message());
    outcome_.total = runs_.size();
    for (size_t i = 0; i < runs_.size(); ++i) {
      if (runDone(folderOf(i).string())) {
        ++outcome_.alreadyDone;
        refreshTunedFrom(runs_[i], folderOf(i).string());
      } else {
        pending_.push_back(i);
      }
    }
    toRun_ = pending_.size();
    print("tetrad run: {}{}: {} runs ({} already done, {} to run) in {}, {} at a time\n",
          options_.sweepFile, options_.phase.empty() ? "" : " (" + options_.phase + ")",
          outcome_.total, outcome_.alreadyDone, toRun_, options_.outDir, options_.jobs);
    start_ = Clock::now();
    while (!pending_.empty() || !running_.empty()) {
      while (outcome_.configError.empty() && !pending_.empty() &&
             int(running_.size()) < options_.jobs) {
        launch(pending_.front());
        pending_.pop_front();
      }
      if (!outcome_.configError.empty()) {
        outcome_.notStarted += pending_.size();
        pending_.clear();
      }
      std::this_thread::sleep_for(kPollInterval);
      reapFinished();
    }
    std::vector<RunRecord> records;
    for (size_t i = 0; i < runs_.size(); ++i) records.push_back(readRunFolder(folderOf(i)));
    writeResults(records, options_.outDir);
    print(
        "tetrad run: {} ok, {} diverged, {} interrupted, {} failed, {} already done, {} not "
        "started; {} elapsed\n",
        outcome_.ok, outcome_.diverged, outcome_.interrupted, outcome_.failed, outcome_.alreadyDone,
        outcome_.notStarted, duration(seconds(Clock::now() - start_)));
    return outcome_;
  }

 private:
  template <typename... Args>
  void print(fmt::format_string<Args...> format, Args&&... args) {
    if (progress_ == nullptr) return;
    std::fputs(fmt::format(format, std::forward<Args>(args)...).c_str(), progress_);
    std::fflush(progress_);
  }

  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

  fs::path folderOf(size_t index) const { return fs::path(options_.outDir) / runs_[index].name; }

  void launch(size_t index) {
    const RunPlan& run = runs_[index];
    const fs::path folder = folderOf(index);
    std::error_code ec;
    fs::create_directories(folder, ec);
    TETRAD_CHECK(!ec, Error, "cannot create the run folder '{}' ({})", folder.string(),
                 ec.message());
    // Interrupted after a checkpoint: continue it (train's --resume checks
    // that the configuration is the same).
    const bool resume = run.retimeOf.empty() && runStatus(folder.string()) == "interrupted" &&
                        fs::is_directory(folder / "checkpoint");
    fs::remove(folder / "train.log", ec);
    std::vector<std::string> command =
        childCommand(run, options_.exe, folder.string(), options_.mpirun, options_.simThreads);
    if (resume) command.insert(command.end(), {"--resume", folder.string()});
    writeRunJson(run, folder.string(), options_.sweepFile, command);
    std::unique_ptr<ChildProcess> child;
    try {
      child = std::make_unique<ChildProcess>(command, (folder / "train.log").string());
    } catch (const Error& e) {
      // E.g. the binary being rebuilt: this run failed, the others go on.
      ++done_;
      ++outcome_.failed;
      outcome_.failedRuns.push_back(run.name);
      print("[{}/{}] FAILED {}: {}\n", done_, toRun_, run.name, e.what());
      return;
    }
    running_.push_back(Running{index, std::move(child), Clock::now()});
    print("        {} {}\n", resume ? "resume" : "start ", run.name);
  }

  void reapFinished() {
    for (auto it = running_.begin(); it != running_.end();) {
      if (!it->child->poll()) {
        ++it;
        continue;
      }
      finished(*it);
      it = running_.erase(it);
    }
  }

  void finished(const Running& r) {
    const RunPlan& run = runs_[r.index];
    const fs::path folder = folderOf(r.index);
    const int status = r.child->exitStatus();
    const double took = seconds(Clock::now() - r.started);
    ++done_;
    const double elapsed = seconds(Clock::now() - start_);
    const size_t left = toRun_ - done_ - outcome_.notStarted;
    const std::string eta = left == 0 ? "0s" : duration(elapsed / double(done_) * double(left));
    const std::string counter = fmt::format("[{}/{}]", done_, toRun_);
    const std::string state = runStatus(folder.string());
    if (state == "diverged" || state == "interrupted") {
      const std::string why = errorLine(tailOfFile((folder / "train.log").string(), kLogTailLines));
      if (state == "diverged") {
        ++outcome_.diverged;
      } else {
        ++outcome_.interrupted;
        outcome_.failedRuns.push_back(run.name);
      }
      print("{} {} {}: {}{} | elapsed {}, ETA {}\n", counter,
            state == "diverged" ? "diverged" : "interrupted", run.name, why,
            state == "diverged" ? "" : " (the next tetrad run resumes it)", duration(elapsed), eta);
      return;
    }
    if (status == 0 && state == "ok") {
      ++outcome_.ok;
      const RunRecord record = readRunFolder(folder.string());
      print(
          "{} ok     {}: accuracy {:.4f}, training time {}, wall {} | elapsed {}, "
          "ETA {}\n",
          counter, run.name, record.finalAccuracy, formatSeconds(record.trainTime), duration(took),
          duration(elapsed), eta);
      return;
    }
    ++outcome_.failed;
    outcome_.failedRuns.push_back(run.name);
    const std::string log = (folder / "train.log").string();
    const std::string tail = tailOfFile(log, kLogTailLines);
    print("{} FAILED {} (exit status {}) after {} | elapsed {}, ETA {}\n  last lines of {}:\n",
          counter, run.name, status, duration(took), duration(elapsed), eta, log);
    size_t start = 0;
    while (start < tail.size()) {
      const size_t end = tail.find('\n', start);
      print("    {}\n", tail.substr(start, end - start));
      start = end == std::string::npos ? tail.size() : end + 1;
    }
    if (status == kConfigErrorStatus && outcome_.configError.empty()) {
      outcome_.configError = fmt::format("{}: [[method]] '{}' on [[cluster]] '{}' (run {}): {}",
                                         run.methodWhere.toString(), run.methodLabel,
                                         run.clusterLabel, run.name, errorLine(tail));
      print("tetrad run: configuration error in [[method]] '{}': no further run starts\n",
            run.methodLabel);
    }
  }

  const std::vector<RunPlan>& runs_;
  const SweepOptions& options_;
  std::FILE* progress_;
  SweepOutcome outcome_;
  std::deque<size_t> pending_;
  std::vector<Running> running_;
  size_t toRun_ = 0;
  size_t done_ = 0;
  Clock::time_point start_;
};

}  // namespace

SweepOutcome runSweep(const std::vector<RunPlan>& runs, const SweepOptions& options,
                      std::FILE* progress) {
  TETRAD_CHECK(options.jobs >= 1, InvalidArgument, "invalid --jobs {}: need at least 1",
               options.jobs);
  return SweepRunner(runs, options, progress).run();
}

}  // namespace tetrad::experiment
