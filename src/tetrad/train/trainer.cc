#include "tetrad/train/trainer.h"

#include <sched.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/sched/registry.h"
#include "tetrad/train/checkpoint/stop_signal.h"
#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/compute/models.h"
#include "tetrad/train/compute/scripted_model.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/record/run_recorder.h"
#include "tetrad/train/timing/timing_trainer.h"
#include "tetrad/transport/analytic_network.h"
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

template <typename T>
double mean(const std::vector<T>& values) {
  if (values.empty()) return 0;
  return double(std::accumulate(values.begin(), values.end(), T{})) / double(values.size());
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

std::string TrainSummary::toJson() const {
  nlohmann::ordered_json j;
  j["folder"] = folder;
  j["status"] = std::string(toString(status));
  if (!error.empty()) j["error"] = error;
  j["skipped_steps"] = skippedSteps;
  j["engine"] = engine;
  if (!timingOnly) j["passes_on_pool"] = passesOnPool;
  if (!timingOnly) j["passes_raised_to_lookahead"] = passesRaisedToLookahead;
  if (timingOnly) j["timing_only"] = true;
  if (!analyticEngine.empty()) j["analytic_engine"] = analyticEngine;
  j["model"] = model;
  j["data"] = data;
  j["cluster"] = cluster;
  j["sync"] = sync;
  j["arch"] = arch;
  j["compress"] = compress;
  j["sched"] = sched;
  j["ps_pull_compress"] = pullCompress;
  j["workers"] = workers;
  j["server_ranks"] = serverRanks;
  j["parameters"] = parameters;
  j["iterations"] = iterations;
  j["epochs"] = epochs;
  j["global_batch_size"] = globalBatch;
  j["final_test_accuracy"] = finalAccuracy;
  j["final_test_loss"] = finalLoss;
  if (!gossip.empty()) {
    j["gossip"] = gossip;
    j["final_rank0_test_accuracy"] = finalOwnAccuracy;
    j["final_consensus_distance"] = consensusDistance;
  }
  j["target_accuracy"] = targetAccuracy;
  j["time_to_target"] = timeToTarget >= 0 ? nlohmann::ordered_json(timeToTarget) : nullptr;
  j["iterations_to_target"] =
      iterationsToTarget >= 0 ? nlohmann::ordered_json(iterationsToTarget) : nullptr;
  j["train_time"] = trainTime;
  j["wall_time"] = wallTime;
  j["throughput_samples_per_s"] = throughput;
  if (compressionError >= 0) {
    j["compression_error"] = {{"ratio", compressionError},
                              {"iterations", compressionErrorSamples},
                              {"on", "rank 0's gradients"}};
  }
  j["updates_applied"] = updatesApplied;
  nlohmann::ordered_json histogram = nlohmann::ordered_json::object();
  for (const auto& [staleness, count] : stalenessHistogram) {
    histogram[std::to_string(staleness)] = count;
  }
  j["staleness_histogram"] = histogram;
  j["role_per_rank"] = roles;
  j["bytes_sent_per_rank"] = bytesSent;
  j["bytes_received_per_rank"] = bytesReceived;
  j["compute_time_per_rank"] = computeTime;
  j["comm_time_per_rank"] = commTime;
  // Bytes by role: the sum over the ranks of each role.
  nlohmann::ordered_json byRole = nlohmann::ordered_json::object();
  for (size_t i = 0; i < roles.size() && i < bytesSent.size(); ++i) {
    if (!byRole.contains(roles[i])) byRole[roles[i]] = {{"sent", 0}, {"received", 0}};
    byRole[roles[i]]["sent"] = byRole[roles[i]]["sent"].get<uint64_t>() + bytesSent[i];
    byRole[roles[i]]["received"] = byRole[roles[i]]["received"].get<uint64_t>() + bytesReceived[i];
  }
  j["bytes_by_role"] = byRole;
  return j.dump(2);
}

std::string TrainSummary::toText() const {
  std::string target = "-";
  if (targetAccuracy > 0) {
    target = timeToTarget >= 0
                 ? fmt::format("{:.4f} reached after {} ({} iterations)", targetAccuracy,
                               formatSeconds(timeToTarget), iterationsToTarget)
                 : fmt::format("{:.4f} not reached", targetAccuracy);
  }
  std::string text;
  text += fmt::format("tetrad train: {} on {}, {} workers ({}), {} {} compress {} sched {}\n",
                      model, data, workers, cluster, sync, arch, compress, sched);
  text += fmt::format("  parameters         {}\n", parameters);
  text += fmt::format("  iterations         {} ({:.2f} epochs, global batch {})\n", iterations,
                      epochs, globalBatch);
  if (timingOnly) {
    text += "  test accuracy      - (timing only: no model is trained)\n";
  } else {
    text += fmt::format(
        "  test accuracy      {:.4f} (loss {:.4f}){}\n", finalAccuracy, finalLoss,
        gossip.empty() ? std::string()
                       : fmt::format(", average model; rank 0's own {:.4f}", finalOwnAccuracy));
  }
  if (!gossip.empty()) {
    text += fmt::format("  consensus distance {:.4g}\n", consensusDistance);
  }
  text += fmt::format("  target accuracy    {}\n", target);
  if (engine == "sim") {
    text += fmt::format("  training time      {} simulated{} (wall {})\n", formatSeconds(trainTime),
                        analyticEngine.empty() ? "" : ", analytic engine", formatSeconds(wallTime));
  } else {
    text += fmt::format("  training time      {} wall\n", formatSeconds(trainTime));
  }
  text += fmt::format("  per rank (mean)    compute {}, communication {}\n",
                      formatSeconds(mean(computeTime)), formatSeconds(mean(commTime)));
  text += fmt::format("  bytes sent/rank    {} (received {})\n", formatBytes(mean(bytesSent)),
                      formatBytes(mean(bytesReceived)));
  if (!stalenessHistogram.empty()) {
    int64_t count = 0, maximum = 0;
    double sum = 0;
    for (const auto& [staleness, n] : stalenessHistogram) {
      count += n;
      sum += double(staleness) * double(n);
      maximum = std::max(maximum, staleness);
    }
    text += fmt::format("  staleness          mean {:.2f}, max {} over {} updates\n",
                        count > 0 ? sum / double(count) : 0.0, maximum, count);
  }
  text += fmt::format("  throughput         {:.1f} samples/s\n", throughput);
  if (!folder.empty()) text += fmt::format("  run folder         {}\n", folder);
  return text;
}

int64_t countParameters(const std::string& model, int channels, int height, int width,
                        int numClasses) {
  return makeModel(model, {channels, height, width, numClasses})->parameterCount();
}

TrainSummary runTraining(const TrainConfig& flags) {
  const ResolvedConfig config = resolveConfig(flags);
  if (config.given.timingOnly) return runTimingOnly(config);
  const TrainConfig& c = config.given;
  const DataSplits data = loadData(dataOptionsFor(c));
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
  if (!c.resume.empty()) {
    TETRAD_CHECK(std::filesystem::is_directory(c.resume), InvalidArgument,
                 "--resume {}: no such run folder", c.resume);
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
    RankTrainer trainer(config, data, t, recorder.get(), pool.get());
    RankResult r = trainer.run();
    if (r.status == RunStatus::kDiverged) diverged = r.error;
    if (r.status == RunStatus::kInterrupted) interrupted = r.error;
    if (t.rank() != 0) return;
    summary = summaryOf(config, r, t, parameters, recorder ? recorder->folder() : "");
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

TrainSummary summaryOf(const ResolvedConfig& config, const RankResult& r, Transport& world,
                       int64_t parameters, const std::string& folder) {
  const TrainConfig& c = config.given;
  TrainSummary summary;
  summary.folder = folder;
  summary.engine = world.engine();
  if (world.analytic()) summary.analyticEngine = world.analytic()->describe();
  summary.model = c.model;
  summary.data = c.data;
  summary.cluster = c.cluster;
  summary.sync = config.sync;
  summary.arch = config.arch.canonical;
  summary.compress = config.compress;
  summary.pullCompress = config.pullCompress;
  summary.sched = config.sched;
  summary.workers = r.workers;
  summary.serverRanks = config.arch.serverRanks;
  summary.parameters = parameters;
  summary.iterations = r.iterations;
  summary.updatesApplied = r.updatesApplied;
  summary.epochs = r.epochs;
  summary.globalBatch = int64_t(c.batchSize) * r.workers;
  summary.finalAccuracy = r.finalAccuracy;
  summary.finalLoss = r.finalLoss;
  summary.targetAccuracy = c.targetAccuracy;
  summary.trainTime = r.trainTime;
  summary.wallTime = r.wallTime;
  summary.throughput = r.trainTime > 0 ? double(r.samples) / r.trainTime : 0;
  for (const RankTotals& rank : r.ranks) {
    summary.roles.push_back(toString(rank.role));
    summary.bytesSent.push_back(rank.bytesSent);
    summary.bytesReceived.push_back(rank.bytesReceived);
    summary.computeTime.push_back(rank.computeTime);
    summary.commTime.push_back(rank.commTime);
  }
  summary.stalenessHistogram = r.stalenessHistogram;
  return summary;
}

}  // namespace tetrad::train
