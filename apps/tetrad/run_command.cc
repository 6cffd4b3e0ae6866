// `tetrad run FILE.toml`: a sweep — every method on every cluster with every
// seed of an experiment file — as one `tetrad train` child process per run
// (src/tetrad/experiment/, docs/experiments.md).
//
//   tetrad run configs/quick.toml --jobs 2
//   tetrad run configs/survey.toml --only topk-ef 10GbE
//
// Every run is parsed and checked with the train command's own flags and
// rules before any starts; an error names the file, line and key to fix.
// Methods with tune_lr first train every rate of their grid for a share of
// the iterations (src/tetrad/experiment/lr_tuning.h); their runs use the pick.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

#include "tetrad/mapping/advise_map.h"
#include "command.h"
#include "tetrad/core/cpu_cores.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/lr_tuning.h"
#include "tetrad/experiment/results_table.h"
#include "tetrad/experiment/run_plan.h"
#include "tetrad/experiment/run_record.h"
#include "tetrad/experiment/run_validation.h"
#include "tetrad/experiment/sweep_file.h"
#include "tetrad/experiment/sweep_runner.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/train/compute/nominal_compute.h"
#include "tetrad/train/timing/timing_trainer.h"
#include "train_options.h"

namespace tetrad::app {
namespace {

struct RunOptions {
  std::string file;
  std::string out;
  int jobs = 1;
  int simThreads = 0;  // 0: the usable cores shared among the jobs
  std::vector<std::string> only;
  std::string mpirun = "mpirun";
  bool dryRun = false;
};

constexpr int kDefaultSimWorkers = 4;  // train's, for a simulated cluster without workers

// Parses `args` as `tetrad train` would and applies its checks; throws
// InvalidArgument or Unsupported naming the flag.
train::ResolvedConfig resolveTrainArgs(const std::vector<std::string>& args) {
  train::TrainConfig config;
  CLI::App app{"tetrad train"};
  addTrainOptions(&app, config);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    TETRAD_FAIL(InvalidArgument, "{}", e.what());
  }
  return train::resolveConfig(config);
}

void validateTrainArgs(const std::vector<std::string>& args) {
  resolveTrainArgs(args);
}

// The iterations `tetrad train` plans for `args`: epochs x iterations per
// epoch over the data set's standard size (as --timing-only plans them),
// capped by --max-iters.
int64_t plannedIterations(const std::vector<std::string>& args) {
  train::ResolvedConfig config = resolveTrainArgs(args);
  const train::TrainConfig& c = config.given;
  config.compute.kind = train::ComputeSpec::Kind::kFixed;  // the size only: no compute probe
  const train::TimingWorkload workload = train::timingWorkload(config);
  int workers = c.workers;
  if (workers <= 0) {
    const int fixed = config.mpi ? 0 : fixedHostCount(c.cluster);
    TETRAD_CHECK(!config.mpi && fixed != kHostsOfPlatformFile, Unsupported,
                 "the worker count of cluster '{}' is known only once it starts; set workers in "
                 "its [[cluster]]",
                 c.cluster);
    workers = fixed > 0 ? fixed - config.arch.serverRanks : kDefaultSimWorkers;
  }
  int64_t total =
      train::timingStepsPerEpoch(workload.trainSamples, workers, c.batchSize) * c.epochs;
  if (c.maxIters > 0) total = std::min(total, c.maxIters);
  return total;
}

// --dry-run: lists the tuning runs and the runs (done or to run) and their
// train arguments; the runs of a method whose tuning has not finished are
// listed "after tuning", their lr still to pick.
void listRuns(const experiment::SweepSpec& spec, const RunOptions& o, const std::string& outDir,
              const std::vector<experiment::TuningPlan>& tuning) {
  namespace fs = std::filesystem;
  auto line = [](const char* state, const std::string& name, const std::vector<std::string>& args) {
    std::string text;
    for (const std::string& a : args) text += " " + a;
    std::printf("%-12s %s:%s\n", state, name.c_str(), text.c_str());
  };
  size_t tuningRuns = 0, tuningDone = 0;
  experiment::LrPicks picks;
  std::vector<std::string> waiting;
  const std::vector<experiment::TuningResult> results =
      experiment::readTuningResults(tuning, spec, outDir);
  for (size_t i = 0; i < tuning.size(); ++i) {
    for (const experiment::RunPlan& run : tuning[i].runs) {
      const bool done =
          experiment::runDone((fs::path(outDir) / experiment::kTuningFolder / run.name).string());
      tuningDone += done ? 1 : 0;
      ++tuningRuns;
      line(done ? "done" : "to run", std::string(experiment::kTuningFolder) + "/" + run.name,
           run.trainArgs());
    }
    if (!results[i].pick.empty()) {
      picks[tuning[i].method] = results[i].pick;
    } else {
      waiting.push_back(tuning[i].method);
    }
  }
  size_t done = 0;
  const std::vector<experiment::RunPlan> runs = experiment::planRuns(spec, o.only, picks);
  for (const experiment::RunPlan& run : runs) {
    if (std::find(waiting.begin(), waiting.end(), run.methodLabel) != waiting.end()) {
      std::vector<std::string> args = run.trainArgs();
      for (size_t a = 0; a + 1 < args.size(); ++a) {
        if (args[a] == "--lr") args[a + 1] = "<tuned>";
      }
      if (std::find(args.begin(), args.end(), "<tuned>") == args.end()) {
        args.insert(args.end(), {"--lr", "<tuned>"});
      }
      line("after tuning", fmt::format("{}-{}-s{}", run.methodLabel, run.clusterLabel, run.seed),
           args);
      continue;
    }
    const bool finished = experiment::runDone((fs::path(outDir) / run.name).string());
    done += finished ? 1 : 0;
    if (!run.retimeOf.empty()) {
      std::vector<std::string> args = {"retime of", run.retimeOf};
      args.insert(args.end(), run.retimeArgs.begin(), run.retimeArgs.end());
      line(finished ? "done" : "to retime", run.name, args);
      continue;
    }
    line(finished ? "done" : "to run", run.name, run.trainArgs());
  }
  if (tuningRuns > 0) {
    std::printf("%zu tuning runs (%zu already done, %zu to run) in %s/%s\n", tuningRuns, tuningDone,
                tuningRuns - tuningDone, outDir.c_str(), experiment::kTuningFolder);
  }
  std::printf("%zu runs (%zu already done, %zu to run) in %s, all valid; nothing run (--dry-run)\n",
              runs.size(), done, runs.size() - done, outDir.c_str());
}

// [map]'s network model is resolved before the first run (a profile is read),
// so that a typo fails the dry run, not the map at the end of the sweep.
void validateMap(const experiment::SweepSpec& spec) {
  if (!spec.map.present || spec.map.netModel.empty()) return;
  try {
    model::resolveNetModel(spec.map.netModel);
  } catch (const InvalidArgument& e) {
    TETRAD_FAIL(InvalidArgument, "{}: [map] net_model: {}", spec.map.where.toString(), e.what());
  }
}

// A sweep's failed and interrupted runs, named in one error (none: returns).
void failOnUnfinished(const experiment::SweepOutcome& outcome,
                      const experiment::TuningOutcome& tuned, const std::string& outDir) {
  const size_t failed = outcome.failed + tuned.sweep.failed;
  const size_t interrupted = outcome.interrupted + tuned.sweep.interrupted;
  if (failed + interrupted > 0) {
    std::string names;
    for (const std::vector<std::string>* list :
         {&tuned.sweep.failedRuns, &std::as_const(outcome.failedRuns)}) {
      for (const std::string& name : *list) names += (names.empty() ? "" : ", ") + name;
    }
    std::string waiting;
    for (const std::string& m : tuned.unfinished) waiting += (waiting.empty() ? "" : ", ") + m;
    TETRAD_FAIL(
        Error,
        "{} of {} runs failed and {} were interrupted ({}); see train.log in their "
        "folders under {} (the next tetrad run resumes the interrupted ones){}",
        failed, outcome.total + tuned.sweep.total, interrupted, names, outDir,
        waiting.empty() ? "" : fmt::format("; the runs of {} wait for their lr tuning", waiting));
  }
}

// [map]: which method wins on which network (`tetrad advise --map`).
void drawSweepMap(const experiment::SweepSpec& spec, const experiment::SweepOptions& options) {
  mapping::AdviseMapFlags map;
  map.results = options.outDir;
  map.bandwidths = spec.map.bandwidth;
  map.latencies = spec.map.latency;
  map.computeScales = spec.map.computeScale;
  map.netModel = spec.map.netModel;
  map.fitNoiseRatio = spec.map.noiseRatio == "fit";
  if (!map.fitNoiseRatio && !spec.map.noiseRatio.empty())
    map.noiseRatio = parseNumber(spec.map.noiseRatio, "[map] noise_ratio");
  map.jobs = options.jobs;
  map.exe = options.exe;
  map.thisBuild = childProgram();
  mapping::runAdviseMap(map);
}

void runSweepFile(const RunOptions& o) {
  const experiment::SweepSpec spec = experiment::parseSweepFile(o.file);
  experiment::validateRuns(experiment::planRuns(spec, o.only), validateTrainArgs);
  validateMap(spec);
  const std::vector<experiment::TuningPlan> tuning =
      experiment::planTuning(spec, o.only, plannedIterations);
  for (const experiment::TuningPlan& plan : tuning) {
    experiment::validateRuns(plan.runs, validateTrainArgs);
  }

  experiment::SweepOptions options;
  options.outDir =
      o.out.empty()
          ? (std::filesystem::path("runs") / std::filesystem::path(o.file).stem()).string()
          : o.out;
  if (o.dryRun) {
    listRuns(spec, o, options.outDir, tuning);
    if (spec.map.present) {
      std::printf("then a method map ([map]: bandwidth %s, latency %s) into %s\n",
                  spec.map.bandwidth.c_str(), spec.map.latency.c_str(), options.outDir.c_str());
    }
    return;
  }
  options.jobs = o.jobs;
  TETRAD_CHECK(o.simThreads >= 0, InvalidArgument,
               "invalid --sim-threads {}: need at least 1 (0: the cores shared among the jobs)",
               o.simThreads);
  options.simThreads =
      o.simThreads > 0 ? o.simThreads : std::max(1, usableCores() / std::max(1, o.jobs));
  options.exe = childProgram();
  options.mpirun = o.mpirun;
  options.sweepFile = o.file;

  // Tuning first; the methods it could not settle wait (their runs are left out).
  const experiment::TuningOutcome tuned = experiment::runTuning(tuning, spec, options, stderr);
  TETRAD_CHECK(tuned.sweep.configError.empty(), InvalidArgument, "{}", tuned.sweep.configError);
  std::vector<experiment::RunPlan> runs;
  for (experiment::RunPlan& run : experiment::planRuns(spec, o.only, tuned.picks)) {
    const bool waits = std::any_of(tuning.begin(), tuning.end(), [&](const auto& plan) {
      return plan.method == run.methodLabel && tuned.picks.count(plan.method) == 0;
    });
    if (!waits) runs.push_back(std::move(run));
  }
  experiment::validateRuns(runs, validateTrainArgs);
  // Trained runs first, then the retimes of the synchronous ones (retime = true).
  std::vector<experiment::RunPlan> trained, retimed;
  std::vector<std::string> folders;  // every run of the sweep, in plan order
  for (const experiment::RunPlan& run : runs) {
    folders.push_back((std::filesystem::path(options.outDir) / run.name).string());
  }
  for (experiment::RunPlan& run : runs) {
    (run.retimeOf.empty() ? trained : retimed).push_back(std::move(run));
  }
  experiment::SweepOutcome outcome = experiment::runSweep(trained, options, stderr);
  // A retime whose trained run did not finish has nothing to replay: failed.
  std::erase_if(retimed, [&](const experiment::RunPlan& run) {
    if (experiment::runDone((std::filesystem::path(options.outDir) / run.retimeOf).string())) {
      return false;
    }
    ++outcome.total;
    ++outcome.failed;
    outcome.failedRuns.push_back(run.name + " (a retime of " + run.retimeOf +
                                 ", which did not finish)");
    return true;
  });
  if (!retimed.empty() && outcome.configError.empty()) {
    experiment::SweepOptions retiming = options;
    retiming.phase = "retiming";
    const experiment::SweepOutcome second = experiment::runSweep(retimed, retiming, stderr);
    outcome.total += second.total;
    outcome.alreadyDone += second.alreadyDone;
    outcome.ok += second.ok;
    outcome.diverged += second.diverged;
    outcome.interrupted += second.interrupted;
    outcome.failed += second.failed;
    outcome.notStarted += second.notStarted;
    outcome.configError = second.configError;  // this phase runs only without an earlier one
    outcome.failedRuns.insert(outcome.failedRuns.end(), second.failedRuns.begin(),
                              second.failedRuns.end());
  }
  if (!folders.empty() && folders.size() != trained.size()) {
    // Each phase wrote results.csv for its own runs: one table of them all.
    std::vector<experiment::RunRecord> records;
    for (const std::string& folder : folders) records.push_back(experiment::readRunFolder(folder));
    experiment::writeResults(records, options.outDir);
  }
  std::printf("results: %s/results.csv, %s/results.jsonl (%zu runs)\n", options.outDir.c_str(),
              options.outDir.c_str(), outcome.total);
  std::fflush(stdout);
  TETRAD_CHECK(outcome.configError.empty(), InvalidArgument, "{}", outcome.configError);
  TETRAD_CHECK(tuned.noPick.empty(), InvalidArgument, "{}", tuned.noPick.front());
  failOnUnfinished(outcome, tuned, options.outDir);
  if (spec.map.present) drawSweepMap(spec, options);
}

void addRunCommand(CommandGroups& groups) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = groups.root->add_subcommand(
      "run", "Run a sweep: every method on every cluster and seed of an experiment file (TOML)");
  cmd->add_option("file", options->file, "Experiment file, e.g. configs/quick.toml")->required();
  cmd->add_option("--out", options->out, "Output folder (default runs/<file stem>)");
  cmd->add_option("--jobs,-j", options->jobs, "Runs at a time (each its own process)")
      ->capture_default_str();
  cmd->add_option("--sim-threads", options->simThreads,
                  "Threads of each simulated run (0: the usable cores divided among the jobs)")
      ->capture_default_str();
  cmd->add_option("--only", options->only,
                  "Only these method and/or cluster labels (space- or comma-separated)")
      ->delimiter(',');
  cmd->add_option("--mpirun", options->mpirun, "mpirun command for clusters with spec = \"mpi\"")
      ->capture_default_str();
  cmd->add_flag("--dry-run", options->dryRun,
                "Check every run and list them (done or to run) without running any");
  cmd->callback([options] { runSweepFile(*options); });
}

CommandRegistration registration(addRunCommand);

}  // namespace
}  // namespace tetrad::app
