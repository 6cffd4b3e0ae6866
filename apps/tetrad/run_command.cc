// `tetrad run FILE.toml`: a sweep — every method on every cluster with every
// seed of an experiment file — as one `tetrad train` child process per run
// (src/tetrad/experiment/, docs/experiments.md).
//
//   tetrad run configs/quick.toml --jobs 2
//   tetrad run configs/survey.toml --only topk-ef 10GbE
//
// Every run is parsed and checked with the train command's own flags and
// rules before any starts; an error names the file, line and key to fix.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "command.h"
#include "tetrad/core/cpu_cores.h"
#include "tetrad/core/error.h"
#include "tetrad/experiment/run_plan.h"
#include "tetrad/experiment/run_record.h"
#include "tetrad/experiment/run_validation.h"
#include "tetrad/experiment/sweep_file.h"
#include "tetrad/experiment/sweep_runner.h"
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

// Parses `args` as `tetrad train` would and applies its checks; throws
// InvalidArgument or Unsupported naming the flag.
void validateTrainArgs(const std::vector<std::string>& args) {
  train::TrainConfig config;
  CLI::App app{"tetrad train"};
  addTrainOptions(&app, config);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    TETRAD_FAIL(InvalidArgument, "{}", e.what());
  }
  train::resolveConfig(config);
}

void runSweepFile(const RunOptions& o) {
  const experiment::SweepSpec spec = experiment::parseSweepFile(o.file);
  const std::vector<experiment::RunPlan> runs = experiment::planRuns(spec, o.only);
  experiment::validateRuns(runs, validateTrainArgs);

  experiment::SweepOptions options;
  options.outDir =
      o.out.empty()
          ? (std::filesystem::path("runs") / std::filesystem::path(o.file).stem()).string()
          : o.out;
  if (o.dryRun) {
    size_t done = 0;
    for (const experiment::RunPlan& run : runs) {
      const bool finished =
          experiment::runDone((std::filesystem::path(options.outDir) / run.name).string());
      done += finished ? 1 : 0;
      std::string args;
      for (const std::string& a : run.trainArgs()) args += " " + a;
      std::printf("%-7s %s:%s\n", finished ? "done" : "to run", run.name.c_str(), args.c_str());
    }
    std::printf(
        "%zu runs (%zu already done, %zu to run) in %s, all valid; nothing run "
        "(--dry-run)\n",
        runs.size(), done, runs.size() - done, options.outDir.c_str());
    return;
  }
  options.jobs = o.jobs;
  TETRAD_CHECK(o.simThreads >= 0, InvalidArgument,
               "invalid --sim-threads {}: need at least 1 (0: the cores shared among the jobs)",
               o.simThreads);
  options.simThreads =
      o.simThreads > 0 ? o.simThreads : std::max(1, usableCores() / std::max(1, o.jobs));
  options.exe = std::filesystem::read_symlink("/proc/self/exe").string();
  options.mpirun = o.mpirun;
  options.sweepFile = o.file;
  const experiment::SweepOutcome outcome = experiment::runSweep(runs, options, stderr);
  std::printf("results: %s/results.csv, %s/results.jsonl (%zu runs)\n", options.outDir.c_str(),
              options.outDir.c_str(), outcome.total);
  std::fflush(stdout);
  TETRAD_CHECK(outcome.configError.empty(), InvalidArgument, "{}", outcome.configError);
  if (outcome.failed + outcome.interrupted > 0) {
    std::string names;
    for (const std::string& name : outcome.failedRuns) names += (names.empty() ? "" : ", ") + name;
    TETRAD_FAIL(Error,
                "{} of {} runs failed and {} were interrupted ({}); see train.log in their "
                "folders under {} (the next tetrad run resumes the interrupted ones)",
                outcome.failed, outcome.total, outcome.interrupted, names, options.outDir);
  }
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
