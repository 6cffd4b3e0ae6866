// runRealTraining() (libtorch_parts.h): a run that trains, on LibTorch
// replicas; trainer.h's runTraining() hands every run that is not
// timing-only to it. Also countParameters() (trainer.h).
#include <sched.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/sched/registry.h"
#include "tetrad/train/checkpoint/checkpoint_store.h"
#include "tetrad/train/checkpoint/stop_signal.h"
#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/compute/models.h"
#include "tetrad/train/compute/scripted_model.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/libtorch_parts.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/record/run_recorder.h"
#include "tetrad/transport/diagnostics.h"

namespace tetrad::train {
namespace {

constexpr int kDefaultSimWorkers = 4;

// Ranks to ask the launcher for: workers (--workers, else 4 unless the
// simulated cluster fixes the count itself) plus dedicated servers; 0 lets
// the engine decide (mpirun's -np, or every host of a platform file).
int launchRanks(const ResolvedConfig& c) {
  if (c.mpi) return 0;
  if (c.given.workers > 0) return worldSizeFor(c, c.given.workers);
  const int fixed = fixedHostCount(c.given.cluster);
  if (fixed == kHostsOfPlatformFile) return 0;
  return fixed > 0 ? fixed : worldSizeFor(c, kDefaultSimWorkers);
}

// Under mpirun a rank bound to one core (Open MPI binds each rank to a core
// when there are at most two ranks) runs an overlapping schedule's
// communication task, or --threads > 1 LibTorch threads, on that one core:
// measured on a 2-core machine, cnn, --sched wfbp ran at 0.85x of none's
// samples/s bound to a core and 0.96x with --bind-to none. Said once, by
// the output process, with the fix.
void warnSingleCoreBinding(const ResolvedConfig& config) {
  const bool overlaps = makeScheduler(config.sched)->overlapsBackward();
  if (!overlaps && config.given.threads <= 1) return;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) != 1) return;
  std::fprintf(stderr,
               "tetrad: warning: this rank is bound to one core, so %s shares it with the "
               "computation; run mpirun --bind-to none (or --map-by slot:PE=N) to give it its "
               "own\n",
               overlaps ? fmt::format("--sched {}'s communication task", config.sched).c_str()
                        : fmt::format("--threads {}", config.given.threads).c_str());
  std::fflush(stderr);
}

}  // namespace

int64_t countParameters(const std::string& model, int channels, int height, int width,
                        int numClasses) {
  return makeModel(model, {channels, height, width, numClasses})->parameterCount();
}

TrainSummary runRealTraining(const ResolvedConfig& resolved) {
  ResolvedConfig config = resolved;
  const TrainConfig& c = config.given;
  const DataSplits data = loadData(dataOptionsFor(c));
  if (!c.resume.empty()) {
    TETRAD_CHECK(std::filesystem::is_directory(c.resume), InvalidArgument,
                 "--resume {}: no such run folder", c.resume);
  }
  // A resumed run walks its checkpoint's batch plan: the global batch kept,
  // or (--resize-batch per-worker on another worker count) anchored anew.
  // Resolved here where the worker count is known, else by each process
  // once its world is (MPI without --workers: one rank per process).
  if (!c.resume.empty() && c.workers > 0) {
    config.batchPlan =
        resumedBatchPlan(c.resume, c.workers, c.batchSize, c.resizeBatch, data.train.size());
  }
  // One LibTorch thread per rank on the simulator (clean measured times);
  // --threads under MPI.
  at::set_num_threads(config.mpi ? c.threads : 1);
  if (config.mpi && isOutputProcess()) warnSingleCoreBinding(config);

  LaunchOptions launchOptions;
  launchOptions.cluster = c.cluster;
  launchOptions.workers = launchRanks(config);
  launchOptions.timeoutSeconds = c.timeout;
  launchOptions.simConfig = config.simConfig;

  // Where the worker count is known now, refuse a batch that does not fit
  // before any engine starts (ranks check again once the world is known).
  if (c.workers > 0) stepsPerEpoch(data.train.size(), c.workers, c.batchSize);

  const bool output = isOutputProcess();
  int64_t parameters = 0;
  std::string modelNote;  // a model file's FLOPs and stages
  {
    const ModelPtr model = makeModel(
        c.model, {data.train.channels, data.train.height, data.train.width, data.train.numClasses});
    parameters = model->parameterCount();
    if (const auto* scripted = dynamic_cast<const ScriptedModel*>(model.get())) {
      modelNote = fmt::format("  model file {}: {:.4g} MFLOPs per sample forward, {}\n", c.model,
                              model->forwardFlops() / 1e6, scripted->stagesNote());
    }
  }
  TrainSummary summary;
  std::string diverged;     // the agreed error of a run the non-finite guard stopped
  std::string interrupted;  // the agreed error of a run a stop signal ended
  // SIGINT/SIGTERM end the run cleanly (checkpoint, status "interrupted")
  // where the workers can agree on it; elsewhere they keep their default
  // action (train_config.h).
  std::optional<StopSignalScope> signals;
  if (config.stopsOnSignal) signals.emplace();
  // Simulated ranks' passes on every core (compute_pool.h).
  std::unique_ptr<ComputePool> pool;
  if (config.simThreads > 1) pool = std::make_unique<ComputePool>(config.simThreads);
  launch(launchOptions, [&](Transport& t) {
    t.diagnostics().setCheckCollectives(c.checkCollectives);
    t.diagnostics().setStallWarnSeconds(c.stallWarn);
    const int servers = config.arch.serverRanks;
    const int workers = c.workers > 0 ? c.workers : t.size() - servers;
    std::unique_ptr<RunRecorder> recorder;
    if (t.rank() == 0 && output) {
      std::string name = c.name.empty() ? defaultRunName(config, workers) : c.name;
      std::string folder = c.out.empty() ? (std::filesystem::path("runs") / name).string() : c.out;
      if (!c.resume.empty()) folder = c.resume;
      recorder = std::make_unique<RunRecorder>(folder, !c.quiet, !c.resume.empty());
      // A resumed run keeps the folder's config.json (the checkpoint decides
      // whether this configuration may continue it; a refusal changes nothing).
      if (c.resume.empty()) recorder->writeConfig(configToJson(config, workers));
      if (c.announce)
        std::printf(
            "tetrad train: model %s (%lld parameters), %s (%zu training / %zu test samples), "
            "%d workers%s on %s\n",
            c.model.c_str(), static_cast<long long>(parameters), c.data.c_str(), data.train.size(),
            data.test.size(), workers,
            servers > 0 ? fmt::format(" + {} servers", servers).c_str() : "", c.cluster.c_str());
      if (c.announce) std::fputs(modelNote.c_str(), stdout);
      std::fflush(stdout);
    }
    ResolvedConfig ownPlan;
    const ResolvedConfig* rankConfig = &config;
    if (!c.resume.empty() && c.workers <= 0) {
      ownPlan = config;
      ownPlan.batchPlan =
          resumedBatchPlan(c.resume, workers, c.batchSize, c.resizeBatch, data.train.size());
      rankConfig = &ownPlan;
    }
    RankTrainer trainer(*rankConfig, data, t, recorder.get(), pool.get());
    RankResult r = trainer.run();
    if (r.status == RunStatus::kDiverged) diverged = r.error;
    if (r.status == RunStatus::kInterrupted) interrupted = r.error;
    if (t.rank() != 0) return;
    summary = summaryOf(*rankConfig, r, t, parameters, recorder ? recorder->folder() : "");
    summary.status = r.status;
    summary.error = r.error;
    summary.skippedSteps = r.skippedSteps;
    summary.compressionError = r.compressionError;
    summary.compressionErrorSamples = r.compressionErrorSamples;
    if (config.arch.mixesModels) {
      summary.gossip = config.gossip;
      summary.finalOwnAccuracy = r.finalOwnAccuracy;
      summary.consensusDistance = r.consensusDistance;
    }
    summary.timeToTarget = r.timeToTarget;
    summary.iterationsToTarget = r.iterationsToTarget;
    // Every rank has finished its passes (the totals were gathered).
    summary.passesOnPool = pool ? pool->submitted() : 0;
    summary.passesRaisedToLookahead = pool ? pool->raisedCharges() : 0;
    if (recorder) recorder->writeSummary(summary.toJson());
  });
  // Every rank ended the run together: no rank is left waiting (error.h).
  if (!diverged.empty()) TETRAD_FAIL(NonFiniteError, "{}", diverged);
  if (!interrupted.empty()) TETRAD_FAIL(Interrupted, "{}", interrupted);
  return summary;
}

}  // namespace tetrad::train
