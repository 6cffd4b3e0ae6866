#include "tetrad/train/train_config.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/train/compute_model.h"
#include "tetrad/train/dataset.h"
#include "tetrad/train/lr_schedule.h"
#include "tetrad/train/partition.h"
#include "tetrad/transport/launcher.h"

namespace tetrad::train {
namespace {

constexpr uint64_t kDefaultFusedBucketBytes = 25ull << 20;

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

bool startsWithAny(const std::string& text, std::initializer_list<const char*> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](const char* p) {
    return text == p || text.starts_with(std::string(p) + ":");
  });
}

void resolveSync(const TrainConfig& c) {
  if (c.sync == "bsp") return;
  if (startsWithAny(c.sync, {"ssp", "asp", "local", "post-local"})) {
    TETRAD_FAIL(Unsupported,
                "--sync {} is not yet supported by tetrad train: only bsp (bulk synchronous) is "
                "implemented",
                c.sync);
  }
  TETRAD_FAIL(InvalidArgument, "invalid --sync '{}': use bsp (ssp, asp, local are planned)",
              c.sync);
}

std::string resolveArch(const TrainConfig& c) {
  if (c.arch == "allreduce") return "ring";
  if (c.arch.starts_with("allreduce:")) {
    AllreduceAlgorithm algorithm = parseAllreduceAlgorithm(c.arch.substr(10));
    return toString(algorithm);
  }
  if (startsWithAny(c.arch, {"ps", "gossip", "dpsgd", "adpsgd", "choco"})) {
    TETRAD_FAIL(Unsupported,
                "--arch {} is not yet supported by tetrad train: only allreduce:ALGO (ring, rd, "
                "rabenseifner, tree, hierarchical, native) is implemented",
                c.arch);
  }
  TETRAD_FAIL(InvalidArgument, "invalid --arch '{}': use allreduce:ALGO (e.g. allreduce:ring)",
              c.arch);
}

void resolveSched(const TrainConfig& c) {
  if (c.sched == "none") return;
  if (startsWithAny(c.sched,
                    {"wfbp", "fusion", "mg-wfbp", "mgwfbp", "priority", "bytescheduler", "p3"})) {
    TETRAD_FAIL(Unsupported,
                "--sched {} is not yet supported by tetrad train: only none (exchange after the "
                "backward pass) is implemented",
                c.sched);
  }
  TETRAD_FAIL(InvalidArgument, "invalid --sched '{}': use none (wfbp, fusion, priority planned)",
              c.sched);
}

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
  static const std::vector<std::string> names = {"mlp", "cnn", "resnet20"};
  return names;
}

uint64_t bucketBytes(const std::string& text, const std::string& compress) {
  if (text == "auto") return compress == "none" ? kDefaultFusedBucketBytes : 0;
  return parseBytes(text);
}

void resolveConfig(TrainConfig& c) {
  resolveSync(c);
  c.allreduceAlgorithm = resolveArch(c);
  resolveSched(c);
  makeCompressor(c.compress);  // throws InvalidArgument on a bad spec
  const auto& models = knownModels();
  TETRAD_CHECK(std::find(models.begin(), models.end(), c.model) != models.end(), InvalidArgument,
               "unknown --model '{}' (use one of {})", c.model, joined(models));
  const auto& datasets = knownDatasets();
  TETRAD_CHECK(std::find(datasets.begin(), datasets.end(), c.data) != datasets.end(),
               InvalidArgument, "unknown --data '{}' (use one of {})", c.data, joined(datasets));
  parsePartition(c.partition);

  c.mpi = isMpiCluster(c.cluster);  // throws on anything but mpi / sim:...
  TETRAD_CHECK(c.workers == -1 || c.workers >= 1, InvalidArgument,
               "invalid --workers {}: need at least one worker", c.workers);
  TETRAD_CHECK(!(c.allreduceAlgorithm == "native" && !c.mpi), Unsupported,
               "--arch allreduce:native needs --cluster mpi (the simulator has no native "
               "all-reduce)");
  TETRAD_CHECK(c.timeout > 0, InvalidArgument, "invalid --timeout {}: must be positive", c.timeout);
  ComputeSpec compute = parseComputeSpec(c.compute);
  TETRAD_CHECK(c.computeNoise >= 0 && std::isfinite(c.computeNoise), InvalidArgument,
               "invalid --compute-noise {}: must be >= 0", c.computeNoise);
  for (const std::string& s : c.stragglers) {
    Straggler straggler = parseStraggler(s);
    TETRAD_CHECK(c.workers < 0 || straggler.rank < c.workers, InvalidArgument,
                 "invalid --straggler '{}': rank {} does not exist with {} workers", s,
                 straggler.rank, c.workers);
  }
  if (c.mpi) {
    TETRAD_CHECK(compute.kind == ComputeSpec::Kind::kMeasured && compute.scale == 1 &&
                     c.stragglers.empty() && c.computeNoise == 0,
                 Unsupported,
                 "--compute {}, --straggler and --compute-noise model time on a simulated "
                 "cluster; under --cluster mpi computation takes real time",
                 c.compute);
  }
  TETRAD_CHECK(c.threads >= 1, InvalidArgument, "invalid --threads {}: need at least 1", c.threads);

  TETRAD_CHECK(c.epochs >= 1, InvalidArgument, "invalid --epochs {}: need at least 1", c.epochs);
  TETRAD_CHECK(c.batchSize >= 1, InvalidArgument, "invalid --batch-size {}: need at least 1",
               c.batchSize);
  TETRAD_CHECK(c.lr > 0 && std::isfinite(c.lr), InvalidArgument,
               "invalid --lr {}: must be positive", c.lr);
  TETRAD_CHECK(c.momentum >= 0 && c.momentum < 1, InvalidArgument,
               "invalid --momentum {}: must be in [0, 1)", c.momentum);
  TETRAD_CHECK(c.weightDecay >= 0 && std::isfinite(c.weightDecay), InvalidArgument,
               "invalid --weight-decay {}: must be >= 0", c.weightDecay);
  TETRAD_CHECK(c.warmup >= 0 && std::isfinite(c.warmup), InvalidArgument,
               "invalid --warmup {}: must be >= 0 epochs", c.warmup);
  parseLrSchedule(c.lrSchedule);
  TETRAD_CHECK(c.lrScaling == "none" || c.lrScaling == "linear", InvalidArgument,
               "invalid --lr-scaling '{}': use none or linear", c.lrScaling);
  bucketBytes(c.bucketSize, c.compress);
  TETRAD_CHECK(c.evalEvery >= 0 && c.logEvery >= 0 && c.maxIters >= 0, InvalidArgument,
               "--eval-every, --log-every and --max-iters must not be negative");
  TETRAD_CHECK(c.targetAccuracy >= 0 && c.targetAccuracy <= 1, InvalidArgument,
               "invalid --target-accuracy {}: must be in [0, 1]", c.targetAccuracy);
}

std::string configToJson(const TrainConfig& c, int workers) {
  nlohmann::ordered_json j;
  j["sync"] = c.sync;
  j["arch"] = "allreduce:" + c.allreduceAlgorithm;
  j["compress"] = makeCompressor(c.compress)->spec();
  j["sched"] = c.sched;
  j["model"] = c.model;
  j["data"] = c.data;
  j["data_dir"] = c.dataDir.empty() ? defaultDataDir(c.data) : c.dataDir;
  j["train_samples"] = c.trainSamples;
  j["test_samples"] = c.testSamples;
  j["partition"] = parsePartition(c.partition).toString();
  j["workers"] = workers;
  j["cluster"] = c.cluster;
  j["sim_config"] = c.simConfig;
  j["timeout"] = c.timeout;
  j["compute"] = parseComputeSpec(c.compute).toString();
  j["stragglers"] = c.stragglers;
  j["compute_noise"] = c.computeNoise;
  j["threads"] = c.mpi ? c.threads : 1;
  j["epochs"] = c.epochs;
  j["batch_size"] = c.batchSize;
  j["global_batch_size"] = int64_t(c.batchSize) * workers;
  j["lr"] = c.lr;
  j["lr_scaling"] = c.lrScaling;
  j["peak_lr"] = c.lrScaling == "linear" ? c.lr * workers : c.lr;
  j["momentum"] = c.momentum;
  j["weight_decay"] = c.weightDecay;
  j["warmup_epochs"] = c.warmup;
  j["lr_schedule"] = parseLrSchedule(c.lrSchedule).toString();
  j["bucket_bytes"] = bucketBytes(c.bucketSize, c.compress);
  j["seed"] = c.seed;
  j["eval_every"] = c.evalEvery;
  j["log_every"] = c.logEvery;
  j["max_iters"] = c.maxIters;
  j["target_accuracy"] = c.targetAccuracy;
  j["name"] = c.name;
  j["out"] = c.out;
  return j.dump(2);
}

std::string defaultRunName(const TrainConfig& c, int workers) {
  std::string compress = c.compress;
  for (char& ch : compress) {
    if (ch == ':' || ch == ',' || ch == '/') ch = '_';
  }
  return fmt::format("{}-{}-{}w-{}-{}-{}", c.model, c.data, workers, c.allreduceAlgorithm, compress,
                     timestamp());
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
