#include "tetrad/train/train_config.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/arch/registry.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/cpu_cores.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/sched/fusion.h"
#include "tetrad/sched/model_zoo.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/compute/device_profile.h"
#include "tetrad/train/compute/model_file.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/loop/lr_schedule.h"

namespace tetrad::train {
namespace {

std::string timestamp() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &local);
  return text;
}

}  // namespace

const std::vector<std::string>& knownModels() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = {"mlp", "cnn", "resnet20"};
    for (std::string& name : sched::zooModelNames()) all.push_back(std::move(name));
    return all;
  }();
  return names;
}

uint64_t bucketBytes(const std::string& text) {
  if (text == "auto") return sched::kDdpBucketBytes;  // DDP's cap (sched/fusion.h)
  return parseBytes(text);
}

double stragglerSlowdown(const ResolvedConfig& config, int rank, int workers) {
  double slowdown = 1;
  for (size_t i = 0; i < config.stragglers.size(); ++i) {
    const Straggler& s = config.stragglers[i];
    TETRAD_CHECK(s.rank < workers, InvalidArgument,
                 "invalid --straggler '{}': rank {} does not exist with {} workers",
                 config.given.stragglers[i], s.rank, workers);
    if (s.rank == rank) slowdown *= s.factor;
  }
  return slowdown;
}

bool timingOnlyNeedsPayloads(const ResolvedConfig& config) {
  const bool pushPull = makeSyncPolicy(config.given.sync)->mode() == SyncMode::kPushPull;
  return config.arch.holdsWeights() || (config.arch.mixesModels && pushPull);
}

int worldSizeFor(const ResolvedConfig& config, int workers) {
  return workers + config.arch.serverRanks;
}

int64_t globalBatchOf(const ResolvedConfig& config, int workers) {
  if (config.batchPlan.resolved()) return config.batchPlan.globalBatch;
  return int64_t(config.given.batchSize) * workers;
}

BatchPlan batchPlanOf(const ResolvedConfig& config, int workers, int64_t ownStepsPerEpoch) {
  if (config.batchPlan.resolved()) return config.batchPlan;
  return uniformBatchPlan(int64_t(config.given.batchSize) * workers, ownStepsPerEpoch);
}

int rankBatchOf(const ResolvedConfig& config, int rank, int workers) {
  const int64_t global = globalBatchOf(config, workers);
  if (global == int64_t(config.given.batchSize) * workers) return config.given.batchSize;
  return int(global / workers + (rank < global % workers ? 1 : 0));
}

std::string configToJson(const ResolvedConfig& r, int workers) {
  const TrainConfig& c = r.given;
  nlohmann::ordered_json j;
  j["sync"] = r.sync;
  j["arch"] = r.arch.canonical;
  j["compress"] = r.compress;
  j["sched"] = r.sched;
  j["ps_pull_compress"] = r.pullCompress;
  j["gossip"] = r.arch.mixesModels ? r.gossip : "";
  j["ps_partition_bytes"] = r.psPartitionBytes;
  j["server_ranks"] = r.arch.serverRanks;
  j["model"] = c.model;
  j["data"] = c.data;
  j["data_dir"] = c.dataDir.empty() ? defaultDataDir(c.data) : c.dataDir;
  j["train_samples"] = c.trainSamples;
  j["test_samples"] = c.testSamples;
  j["partition"] = r.partition.toString();
  j["workers"] = workers;
  j["cluster"] = c.cluster;
  j["net_model"] = r.netModel;
  j["engine"] = c.engine;
  j["sim_config"] = r.simConfig;
  j["timeout"] = c.timeout;
  j["compute"] = r.compute.toString();
  j["codec_cost"] = c.codecCost;
  j["codec_charge"] = r.codecCharge.describe();
  j["stragglers"] = c.stragglers;
  j["compute_noise"] = c.computeNoise;
  j["threads"] = r.mpi ? c.threads : 1;
  j["sim_threads"] = r.simThreads;
  j["epochs"] = c.epochs;
  j["batch_size"] = c.batchSize;
  j["global_batch_size"] = globalBatchOf(r, workers);
  j["lr"] = c.lr;
  j["lr_scaling"] = c.lrScaling;
  j["resize_batch"] = c.resizeBatch;
  j["peak_lr"] = r.linearScaling ? c.lr * double(globalBatchOf(r, workers) / c.batchSize) : c.lr;
  j["momentum"] = c.momentum;
  j["weight_decay"] = c.weightDecay;
  j["warmup_epochs"] = c.warmup;
  j["lr_schedule"] = r.lrSchedule.toString();
  j["bucket_bytes"] = r.bucketBytes;
  j["seed"] = c.seed;
  j["eval_every"] = c.evalEvery;
  j["log_every"] = c.logEvery;
  j["max_iters"] = c.maxIters;
  j["target_accuracy"] = c.targetAccuracy;
  j["on_nonfinite"] =
      r.nonFiniteEvery > 1 ? fmt::format("stop:{}", r.nonFiniteEvery) : toString(r.onNonFinite);
  j["check_collectives"] = c.checkCollectives;
  j["stall_warn"] = c.stallWarn >= 0 ? c.stallWarn : c.timeout / 10;
  j["name"] = c.name;
  j["out"] = c.out;
  j["timing_only"] = c.timingOnly;
  j["timeline"] = c.timeline;
  j["checkpoint_every"] = c.checkpointEvery;
  if (!c.membership.empty()) {
    j["membership"] = c.membership;
    j["churn_restart"] = c.churnRestart;
    j["churn_emergency_checkpoint"] = c.churnEmergencyCheckpoint;
  }
  return j.dump(2);
}

std::string defaultRunName(const ResolvedConfig& r, int workers) {
  auto clean = [](std::string text) {
    for (char& ch : text) {
      if (ch == ':' || ch == ',' || ch == '/') ch = '_';
    }
    return text;
  };
  return fmt::format("{}-{}-{}w-{}-{}-{}-{}", modelShortName(r.given.model), r.given.data, workers,
                     clean(r.sync), clean(r.arch.canonical), clean(r.compress), timestamp());
}

DataOptions dataOptionsFor(const TrainConfig& config) {
  DataOptions options;
  options.name = config.data;
  options.dir = config.dataDir;
  options.trainSamples = config.trainSamples;
  options.testSamples = config.testSamples;
  options.seed = config.seed;
  return options;
}

}  // namespace tetrad::train
