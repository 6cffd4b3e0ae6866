#include "train_test_util.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>

#include "tetrad/launch/launcher.h"
#include "tetrad/train/checkpoint/checkpoint_store.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/record/run_recorder.h"

namespace tetrad::train::testing {

TrainConfig equivalenceConfig(const std::string& model, int batch, int64_t iterations,
                              const std::string& algorithm) {
  TrainConfig c;
  c.model = model;
  c.data = "synthetic";
  c.batchSize = batch;
  c.maxIters = iterations;
  c.epochs = 100;
  c.lr = 0.05;
  c.momentum = 0.9;
  c.weightDecay = 1e-3;
  c.warmup = 0;
  c.arch = "allreduce:" + algorithm;
  c.cluster = "sim:10Gbps,25us";
  c.quiet = true;
  c.seed = 11;
  return c;
}

std::vector<float> trainRank(const TrainConfig& config, const DataSplits& data,
                             Transport& transport) {
  const ResolvedConfig resolved = resolveConfig(config);
  RankTrainer trainer(resolved, data, transport, nullptr);
  return trainer.run(/*keepParameters=*/true).parameters;
}

std::vector<float> finalParameters(const TrainConfig& config, const DataSplits& data, int workers) {
  const ResolvedConfig resolved = resolveConfig(config);
  std::vector<float> parameters;
  LaunchOptions options;
  options.cluster = config.cluster;
  options.workers = worldSizeFor(resolved, workers);
  options.timeoutSeconds = 60;
  launch(options, [&](Transport& t) {
    std::vector<float> mine = trainRank(config, data, t);
    if (t.rank() == 0) parameters = std::move(mine);
  });
  return parameters;
}

double maxRelativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return std::numeric_limits<double>::infinity();
  double scale = 0, diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, double(std::fabs(b[i])));
    diff = std::max(diff, double(std::fabs(a[i] - b[i])));
  }
  return diff / (1 + scale);
}

Outcome runInFolder(const TrainConfig& config, const DataSplits& data, int workers) {
  ResolvedConfig resolved = resolveConfig(config);
  if (!config.resume.empty()) {
    resolved.batchPlan = resumedBatchPlan(config.resume, workers, config.batchSize,
                                          config.resizeBatch, data.train.size());
  }
  Outcome outcome;
  LaunchOptions options;
  options.cluster = config.cluster;
  options.workers = worldSizeFor(resolved, workers);
  options.timeoutSeconds = 60;
  options.simConfig = resolved.simConfig;
  launch(options, [&](Transport& t) {
    std::unique_ptr<RunRecorder> recorder;
    if (t.rank() == 0) {
      recorder = std::make_unique<RunRecorder>(config.out, false, !config.resume.empty());
      recorder->writeConfig(configToJson(resolved, workers));
    }
    RankTrainer trainer(resolved, data, t, recorder.get());
    RankResult result = trainer.run(true);
    if (t.rank() == 0) {
      outcome.parameters = std::move(result.parameters);
      outcome.status = std::string(toString(result.status));
      outcome.ranks = result.ranks;
      outcome.updatesApplied = result.updatesApplied;
      outcome.stalenessHistogram = result.stalenessHistogram;
      outcome.finalAccuracy = result.finalAccuracy;
      outcome.resizes = result.resizes;
      outcome.iterations = result.iterations;
      outcome.samples = result.samples;
      outcome.epochs = result.epochs;
    }
  });
  std::ifstream in(std::filesystem::path(config.out) / "metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json record = nlohmann::json::parse(line);
    record.erase("wall_time");
    outcome.metrics.push_back(std::move(record));
  }
  return outcome;
}


}  // namespace tetrad::train::testing
