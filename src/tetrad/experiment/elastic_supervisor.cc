#include "tetrad/experiment/elastic_supervisor.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tetrad/core/error.h"
#include "tetrad/experiment/child_process.h"

namespace tetrad::experiment {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr auto kPoll = std::chrono::milliseconds(100);
constexpr double kDiscoveryTimeout = 30;  // seconds a discovery command may take
constexpr double kTimeoutGrace = 5;       // seconds mpirun has to end a job that timed out

std::atomic<int> gStopSignal{0};
extern "C" void onSupervisorSignal(int signal) { gStopSignal = signal; }

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

uint64_t sizeOf(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : uint64_t(size);
}

// The last "iteration" of metrics.jsonl (-1 when none).
int64_t lastLoggedIteration(const std::string& folder) {
  std::ifstream in(fs::path(folder) / "metrics.jsonl");
  int64_t last = -1;
  for (std::string line; std::getline(in, line);) {
    const Json record = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_object() && record.contains("iteration") && record["iteration"].is_number())
      last = record["iteration"].get<int64_t>();
  }
  return last;
}

// True when the log's bytes after `scanned` hold `text` (a line may be cut
// between two calls: the search starts a little before `scanned`).
bool logSays(const std::string& log, uint64_t& scanned, const std::string& text) {
  std::ifstream in(log);
  const uint64_t from = scanned > text.size() ? scanned - text.size() : 0;
  in.seekg(std::streamoff(from));
  std::stringstream fresh;
  fresh << in.rdbuf();
  scanned = from + fresh.str().size();
  return fresh.str().find(text) != std::string::npos;
}

// The last line of a job's log that is not mpirun's decoration ("----",
// its notes about aborting the job).
std::string lastMessage(const std::string& log) {
  std::istringstream in(readText(log));
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("tetrad")) last = line;
  }
  return last.empty() ? tailOfFile(log, 1) : last;
}

// Seconds from the writing of checkpoint `iteration` (its rank-0 file) to
// `instant`: the work since then is done again. The run's whole age when
// there is no checkpoint (its config.json).
double secondsSinceCheckpoint(const std::string& folder, int64_t iteration, double instant) {
  const fs::path file = iteration >= 0 ? fs::path(folder) / "checkpoint" /
                                             fmt::format("iter-{:06}", iteration) /
                                             "rank-00000.ckpt"
                                       : fs::path(folder) / "config.json";
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return 0;
  const double written = double(info.st_mtim.tv_sec) + 1e-9 * double(info.st_mtim.tv_nsec);
  return std::max(0.0, instant - written);
}

// Removes one slot per lost rank from the host that ran it (mpirun maps
// ranks to the --host slots in order).
void dropLostSlots(std::vector<ElasticHost>& hosts, int workers, const std::vector<int>& lost) {
  std::vector<int> hostOfRank;
  for (size_t h = 0; h < hosts.size(); ++h) {
    for (int s = 0; s < hosts[h].slots && int(hostOfRank.size()) < workers; ++s) {
      hostOfRank.push_back(int(h));
    }
  }
  for (int rank : lost) {
    if (rank >= 0 && rank < int(hostOfRank.size())) hosts[size_t(hostOfRank[size_t(rank)])].slots--;
  }
  std::erase_if(hosts, [](const ElasticHost& host) { return host.slots <= 0; });
}

}  // namespace

void checkElasticOptions(const ElasticOptions& o) {
  TETRAD_CHECK(o.maxWorkers >= 1, InvalidArgument, "--max-workers {}: need at least 1",
               o.maxWorkers);
  TETRAD_CHECK(o.minWorkers >= 1 && o.minWorkers <= o.maxWorkers, InvalidArgument,
               "--min-workers {}: need 1 <= min <= --max-workers {}", o.minWorkers, o.maxWorkers);
  TETRAD_CHECK(o.hostfile.empty() || o.discovery.empty(), InvalidArgument,
               "--hostfile and --host-discovery: give one of them");
  TETRAD_CHECK(o.maxRestarts >= 0, InvalidArgument, "--max-restarts {}: need >= 0",
               o.maxRestarts);
  TETRAD_CHECK(o.checkpointEvery >= 1, InvalidArgument, "--checkpoint-every {}: need >= 1",
               o.checkpointEvery);
  TETRAD_CHECK(o.discoveryInterval > 0, InvalidArgument, "--discovery-interval {}: need > 0 s",
               o.discoveryInterval);
  TETRAD_CHECK(!o.mpirun.empty() && !o.folder.empty() && !o.tetrad.empty() && o.latestCheckpoint,
               InvalidArgument,
               "elastic: no mpirun, run folder or tetrad executable");
  for (const std::string& arg : o.trainArgs) {
    for (const char* owned : {"--workers", "--cluster", "--checkpoint-every", "--resume", "--out",
                              "--name"}) {
      TETRAD_CHECK(arg != owned && !arg.starts_with(std::string(owned) + "="), InvalidArgument,
                   "train {}: tetrad elastic sets it (use elastic's own flags)", owned);
    }
  }
}

struct ElasticSupervisor::Attempt {
  int number = 0;
  int workers = 0;
  bool resume = false;
  bool growRequested = false;
  int grownWorkers = 0;
  double restartedAt = -1;  // the failure this attempt recovers from
  uint64_t metricsAtStart = 0;
  std::string log;
};

ElasticSupervisor::ElasticSupervisor(ElasticOptions options) : options_(std::move(options)) {
  checkElasticOptions(options_);
}

std::vector<ElasticHost> ElasticSupervisor::currentHosts() const {
  if (!options_.hostfile.empty()) {
    TETRAD_CHECK(fs::exists(options_.hostfile), InvalidArgument, "--hostfile {}: no such file",
                 options_.hostfile);
    return parseHostfile(readText(options_.hostfile), options_.hostfile);
  }
  if (options_.discovery.empty()) return {{"localhost", options_.maxWorkers}};
  const fs::path out = fs::path(options_.folder) / "elastic" / "discovery.out";
  fs::remove(out);
  ChildProcess child({"sh", "-c", options_.discovery}, out.string());
  const double deadline = nowSeconds() + kDiscoveryTimeout;
  while (!child.poll()) {
    TETRAD_CHECK(nowSeconds() < deadline, TimeoutError,
                 "--host-discovery '{}' did not finish in {} s", options_.discovery,
                 kDiscoveryTimeout);
    std::this_thread::sleep_for(kPoll);
  }
  TETRAD_CHECK(child.exitStatus() == 0, InvalidArgument,
               "--host-discovery '{}' exited with status {}: {}", options_.discovery,
               child.exitStatus(), tailOfFile(out.string(), 1));
  return parseDiscoveredHosts(readText(out), "--host-discovery '" + options_.discovery + "'");
}

void ElasticSupervisor::event(const std::string& json) {
  events_.push_back(json);
  std::ofstream(fs::path(options_.folder) / "elastic.jsonl", std::ios::app) << json << "\n";
}

// Starts the attempt's job and waits for it; returns its exit status.
int ElasticSupervisor::launch(Attempt& a) {
  const std::string folder = options_.folder;
  std::vector<std::string> argv = options_.mpirun;
  argv.insert(argv.end(), {"-np", std::to_string(a.workers)});
  if (!options_.hostfile.empty() || !options_.discovery.empty()) {
    argv.insert(argv.end(), {"--host", hostArgument(hosts_, a.workers)});
  }
  argv.insert(argv.end(), {options_.tetrad, "train", "--cluster", "mpi"});
  argv.insert(argv.end(), options_.trainArgs.begin(), options_.trainArgs.end());
  argv.insert(argv.end(), {"--checkpoint-every", std::to_string(options_.checkpointEvery)});
  argv.insert(argv.end(), {a.resume ? "--resume" : "--out", folder});
  a.log = (fs::path(folder) / "elastic" / fmt::format("attempt-{}.log", a.number)).string();
  a.metricsAtStart = sizeOf(fs::path(folder) / "metrics.jsonl");
  event(Json{{"event", "start"},
             {"attempt", a.number},
             {"workers", a.workers},
             {"hosts", hostArgument(hosts_, a.workers)},
             {"resume", a.resume},
             {"time", nowSeconds()}}
            .dump());
  std::printf("tetrad elastic: attempt %d on %d workers%s\n", a.number, a.workers,
              a.resume ? " (resuming)" : "");
  std::fflush(stdout);
  // Its own process group: a job whose mpirun cannot end (a host cut off
  // keeps its daemon unreachable) is killed whole.
  ChildProcess child(argv, a.log, "", /*ownGroup=*/true);
  double timeoutsSeen = -1;
  uint64_t scanned = 0;  // bytes of the log searched so far
  double nextDiscovery = nowSeconds() + options_.discoveryInterval;
  bool stopForwarded = false;
  while (!child.poll()) {
    std::this_thread::sleep_for(kPoll);
    // Survivors that timed out end their job; when mpirun cannot end it (a
    // host cut off), the supervisor does, kTimeoutGrace later.
    if (timeoutsSeen < 0 && logSays(a.log, scanned, "timed out after")) timeoutsSeen = nowSeconds();
    if (timeoutsSeen >= 0 && nowSeconds() > timeoutsSeen + kTimeoutGrace) {
      child.killGroup(SIGKILL);
      timeoutsSeen = nowSeconds() + 3600;  // once
    }
    if (gStopSignal != 0 && !stopForwarded) {
      ::kill(child.pid(), SIGUSR1);  // every rank checkpoints and stops
      stopForwarded = true;
    }
    if (a.restartedAt >= 0 && sizeOf(fs::path(folder) / "metrics.jsonl") > a.metricsAtStart) {
      const double downtime = nowSeconds() - a.restartedAt;
      secondsLost_ += downtime;
      event(Json{{"event", "resumed"}, {"attempt", a.number}, {"downtime_seconds", downtime}}
                .dump());
      a.restartedAt = -1;
    }
    if (options_.discovery.empty() || a.growRequested || nowSeconds() < nextDiscovery) continue;
    nextDiscovery = nowSeconds() + options_.discoveryInterval;
    const std::vector<ElasticHost> offered = currentHosts();
    const int more = std::min(options_.maxWorkers, totalSlots(offered));
    if (more > a.workers) {
      hosts_ = offered;
      a.growRequested = true;
      a.grownWorkers = more;
      ::kill(child.pid(), SIGUSR1);
      std::printf("tetrad elastic: %d slots offered; growing to %d workers at the next iteration\n",
                  totalSlots(offered), more);
      std::fflush(stdout);
      event(Json{{"event", "grow"}, {"from", a.workers}, {"to", more}, {"time", nowSeconds()}}
                .dump());
    }
  }
  return child.exitStatus();
}

int ElasticSupervisor::finish(int status, const std::string& line) {
  const fs::path summaryPath = fs::path(options_.folder) / "summary.json";
  Json summary = Json::parse(readText(summaryPath), nullptr, /*allow_exceptions=*/false);
  if (summary.is_object()) {
    Json events = Json::array();
    for (const std::string& e : events_) events.push_back(Json::parse(e));
    summary["elastic"] = {{"restarts", restarts_},
                          {"iterations_lost", iterationsLost_},
                          {"seconds_lost", secondsLost_},
                          {"events", events}};
    std::ofstream(summaryPath) << summary.dump(2) << "\n";
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  return status;
}

int ElasticSupervisor::run() {
  fs::create_directories(fs::path(options_.folder) / "elastic");
  struct sigaction action {};
  action.sa_handler = onSupervisorSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  hosts_ = currentHosts();
  Attempt a;
  a.workers = std::min(options_.maxWorkers, totalSlots(hosts_));
  a.resume = options_.latestCheckpoint(options_.folder) >= 0;
  for (a.number = 1;; ++a.number) {
    TETRAD_CHECK(a.workers >= options_.minWorkers, InvalidArgument,
                 "tetrad elastic: the hosts offer {} slots, below --min-workers {}", a.workers,
                 options_.minWorkers);
    const int status = launch(a);
    const std::string tail = lastMessage(a.log);
    if (status == 0) {
      event(Json{{"event", "finished"}, {"workers", a.workers}, {"time", nowSeconds()}}.dump());
      return finish(0, fmt::format("tetrad elastic: finished on {} workers after {} restart{}; "
                                   "{} iterations and {:.1f} s lost (summary.json: elastic)",
                                   a.workers, restarts_, restarts_ == 1 ? "" : "s",
                                   iterationsLost_, secondsLost_));
    }
    if (gStopSignal != 0) {
      return finish(3, fmt::format("tetrad elastic: stopped by a signal; continue with the same "
                                   "command (the run folder {} holds the checkpoint)",
                                   options_.folder));
    }
    const int64_t checkpoint = options_.latestCheckpoint(options_.folder);
    if (status == 3 && a.growRequested) {
      a.workers = a.grownWorkers;
      a.resume = checkpoint >= 0;
      a.growRequested = false;
      continue;
    }
    // A failure: which ranks were lost?
    const std::string output = readText(a.log);
    std::vector<int> lost = ranksLostBySignal(output);
    if (lost.empty()) lost = ranksSilentAfterTimeouts(output, a.workers);
    // Exit status 2 is tetrad's bad input: the supervisor's too.
    if (lost.empty() && status == 2) {
      TETRAD_FAIL(InvalidArgument, "tetrad elastic: the job refused its input: {} (log: {})", tail,
                  a.log);
    }
    TETRAD_CHECK(!lost.empty(), Error,
                 "tetrad elastic: the job failed (exit status {}) without losing a worker: {} "
                 "(log: {})",
                 status, tail, a.log);
    const double failedAt = nowSeconds();
    const int64_t reached = lastLoggedIteration(options_.folder);
    const int64_t redone = checkpoint >= 0 && reached > checkpoint ? reached - checkpoint : 0;
    const double sinceCheckpoint = secondsSinceCheckpoint(options_.folder, checkpoint, failedAt);
    secondsLost_ += sinceCheckpoint;
    iterationsLost_ += checkpoint >= 0 ? redone : std::max<int64_t>(reached, 0);
    dropLostSlots(hosts_, a.workers, lost);
    if (!options_.discovery.empty()) hosts_ = currentHosts();
    const int left = std::min(options_.maxWorkers, totalSlots(hosts_));
    std::string lostText;
    for (int rank : lost) lostText += (lostText.empty() ? "" : ", ") + std::to_string(rank);
    event(Json{{"event", "lost"},
               {"attempt", a.number},
               {"exit_status", status},
               {"ranks", lost},
               {"workers_left", left},
               {"checkpoint_iteration", checkpoint},
               {"last_logged_iteration", reached},
               {"iterations_lost", redone},
               {"seconds_since_checkpoint", sinceCheckpoint},
               {"time", failedAt}}
              .dump());
    const std::string intact =
        checkpoint >= 0 ? fmt::format("the last checkpoint (iteration {}) is intact in {}/checkpoint",
                                      checkpoint, options_.folder)
                        : "no checkpoint was written";
    if (left < options_.minWorkers) {
      return finish(1, fmt::format("tetrad elastic: lost rank {}; {} worker{} left, below "
                                   "--min-workers {}; {}",
                                   lostText, left, left == 1 ? "" : "s", options_.minWorkers,
                                   intact));
    }
    if (++restarts_ > options_.maxRestarts) {
      return finish(1, fmt::format("tetrad elastic: lost rank {} after {} restarts (--max-restarts "
                                   "{}); {}",
                                   lostText, restarts_ - 1, options_.maxRestarts, intact));
    }
    std::printf("tetrad elastic: lost rank %s; restarting on %d workers from %s\n",
                lostText.c_str(), left,
                checkpoint >= 0 ? fmt::format("iteration {}", checkpoint).c_str() : "the start");
    a.workers = left;
    a.resume = checkpoint >= 0;
    a.restartedAt = failedAt;
  }
}

}  // namespace tetrad::experiment
