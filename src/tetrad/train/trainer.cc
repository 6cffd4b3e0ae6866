#include "tetrad/train/trainer.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <regex>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/train/dataset.h"
#include "tetrad/train/models.h"
#include "tetrad/train/partition.h"
#include "tetrad/train/rank_trainer.h"
#include "tetrad/train/run_recorder.h"
#include "tetrad/transport/launcher.h"

namespace tetrad::train {
namespace {

constexpr int kDefaultSimWorkers = 4;

// Workers to ask the launcher for: the user's --workers, else 4 unless the
// simulated cluster spec fixes the count itself ("sim:8x10Gbps,...", a
// fat-tree, a torus or a platform file; see transport/sim/cluster_spec.h).
int launchWorkers(const TrainConfig& c) {
  if (c.workers > 0) return c.workers;
  if (c.mpi) return 0;
  static const std::regex fixesCount(R"(^sim:(\d+x|fattree:|torus:|.*\.xml$))");
  return std::regex_search(c.cluster, fixesCount) ? 0 : kDefaultSimWorkers;
}

template <typename T>
double mean(const std::vector<T>& values) {
  if (values.empty()) return 0;
  return double(std::accumulate(values.begin(), values.end(), T{})) / double(values.size());
}

}  // namespace

std::string TrainSummary::toJson() const {
  nlohmann::ordered_json j;
  j["folder"] = folder;
  j["engine"] = engine;
  j["model"] = model;
  j["data"] = data;
  j["cluster"] = cluster;
  j["sync"] = sync;
  j["arch"] = arch;
  j["compress"] = compress;
  j["sched"] = sched;
  j["workers"] = workers;
  j["parameters"] = parameters;
  j["iterations"] = iterations;
  j["epochs"] = epochs;
  j["global_batch_size"] = globalBatch;
  j["final_test_accuracy"] = finalAccuracy;
  j["final_test_loss"] = finalLoss;
  j["target_accuracy"] = targetAccuracy;
  j["time_to_target"] = timeToTarget >= 0 ? nlohmann::ordered_json(timeToTarget) : nullptr;
  j["iterations_to_target"] =
      iterationsToTarget >= 0 ? nlohmann::ordered_json(iterationsToTarget) : nullptr;
  j["train_time"] = trainTime;
  j["wall_time"] = wallTime;
  j["throughput_samples_per_s"] = throughput;
  j["bytes_sent_per_rank"] = bytesSent;
  j["bytes_received_per_rank"] = bytesReceived;
  j["compute_time_per_rank"] = computeTime;
  j["comm_time_per_rank"] = commTime;
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
  text += fmt::format("  test accuracy      {:.4f} (loss {:.4f})\n", finalAccuracy, finalLoss);
  text += fmt::format("  target accuracy    {}\n", target);
  if (engine == "sim") {
    text += fmt::format("  training time      {} simulated (wall {})\n", formatSeconds(trainTime),
                        formatSeconds(wallTime));
  } else {
    text += fmt::format("  training time      {} wall\n", formatSeconds(trainTime));
  }
  text += fmt::format("  per rank (mean)    compute {}, communication {}\n",
                      formatSeconds(mean(computeTime)), formatSeconds(mean(commTime)));
  text += fmt::format("  bytes sent/rank    {} (received {})\n", formatBytes(mean(bytesSent)),
                      formatBytes(mean(bytesReceived)));
  text += fmt::format("  throughput         {:.1f} samples/s\n", throughput);
  if (!folder.empty()) text += fmt::format("  run folder         {}\n", folder);
  return text;
}

int64_t countParameters(const std::string& model, int channels, int height, int width,
                        int numClasses) {
  return makeModel(model, {channels, height, width, numClasses})->parameterCount();
}

TrainSummary runTraining(TrainConfig config) {
  resolveConfig(config);
  const DataSplits data = loadData(dataOptionsFor(config));
  // One LibTorch thread per rank on the simulator (clean measured times);
  // --threads under MPI.
  at::set_num_threads(config.mpi ? config.threads : 1);

  LaunchOptions launchOptions;
  launchOptions.cluster = config.cluster;
  launchOptions.workers = launchWorkers(config);
  launchOptions.timeoutSeconds = config.timeout;
  launchOptions.simConfig = config.simConfig;

  // Where the rank count is known now, refuse a batch that does not fit
  // before any engine starts (ranks check again once the world is known).
  if (launchOptions.workers > 0) {
    stepsPerEpoch(data.train.size(), launchOptions.workers, config.batchSize);
  }

  const bool output = isOutputProcess();
  const int64_t parameters = countParameters(config.model, data.train.channels, data.train.height,
                                             data.train.width, data.train.numClasses);
  TrainSummary summary;
  launch(launchOptions, [&](Transport& t) {
    const int workers = t.size();
    TETRAD_CHECK(config.workers < 0 || config.workers == workers, InvalidArgument,
                 "--workers {} but the cluster has {} ranks (under MPI set -np instead)",
                 config.workers, workers);
    std::unique_ptr<RunRecorder> recorder;
    if (t.rank() == 0 && output) {
      std::string name = config.name.empty() ? defaultRunName(config, workers) : config.name;
      std::string folder =
          config.out.empty() ? (std::filesystem::path("runs") / name).string() : config.out;
      recorder = std::make_unique<RunRecorder>(folder, !config.quiet);
      recorder->writeConfig(configToJson(config, workers));
      std::printf(
          "tetrad train: model %s (%lld parameters), %s (%zu training / %zu test samples), "
          "%d workers on %s\n",
          config.model.c_str(), static_cast<long long>(parameters), config.data.c_str(),
          data.train.size(), data.test.size(), workers, config.cluster.c_str());
      std::fflush(stdout);
    }
    RankTrainer trainer(config, data, t, recorder.get());
    RankResult r = trainer.run();
    if (t.rank() != 0) return;
    summary.folder = recorder ? recorder->folder() : "";
    summary.engine = t.engine();
    summary.model = config.model;
    summary.data = config.data;
    summary.cluster = config.cluster;
    summary.sync = config.sync;
    summary.arch = "allreduce:" + config.allreduceAlgorithm;
    summary.compress = makeCompressor(config.compress)->spec();
    summary.sched = config.sched;
    summary.workers = workers;
    summary.parameters = parameters;
    summary.iterations = r.iterations;
    summary.epochs = r.epochs;
    summary.globalBatch = int64_t(config.batchSize) * workers;
    summary.finalAccuracy = r.finalAccuracy;
    summary.finalLoss = r.finalLoss;
    summary.targetAccuracy = config.targetAccuracy;
    summary.timeToTarget = r.timeToTarget;
    summary.iterationsToTarget = r.iterationsToTarget;
    summary.trainTime = r.trainTime;
    summary.wallTime = r.wallTime;
    summary.throughput = r.trainTime > 0 ? double(r.samples) / r.trainTime : 0;
    summary.bytesSent = r.bytesSent;
    summary.bytesReceived = r.bytesReceived;
    summary.computeTime = r.computeTime;
    summary.commTime = r.commTime;
    if (recorder) recorder->writeSummary(summary.toJson());
  });
  return summary;
}

}  // namespace tetrad::train
