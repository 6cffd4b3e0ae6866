#include "tetrad/train/timing/retime.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/timing/retimed_run_folder.h"
#include "tetrad/train/trainer.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

Json readJson(const fs::path& file, const std::string& what) {
  std::ifstream in(file);
  TETRAD_CHECK(in.good(), InvalidArgument, "retime: {} has no {}{}", file.parent_path().string(),
               file.filename().string(), what);
  try {
    return Json::parse(in);
  } catch (const Json::exception& e) {
    throw InvalidArgument(fmt::format("retime: {} is not valid JSON: {}", file.string(), e.what()));
  }
}

// Lines of metrics.jsonl; InvalidArgument when there are none.
std::vector<Json> readMetrics(const fs::path& folder) {
  std::ifstream in(folder / "metrics.jsonl");
  std::vector<Json> lines;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty()) continue;
    try {
      lines.push_back(Json::parse(text));
    } catch (const Json::exception&) {
      throw InvalidArgument(fmt::format("retime: {}/metrics.jsonl line {} is not valid JSON",
                                        folder.string(), lines.size() + 1));
    }
  }
  TETRAD_CHECK(!lines.empty(), InvalidArgument,
               "retime: {} has no metrics (metrics.jsonl is missing or empty): not a finished run",
               folder.string());
  return lines;
}

template <typename T>
T field(const Json& j, const char* key, const std::string& file) {
  TETRAD_CHECK(j.contains(key) && !j[key].is_null(), InvalidArgument, "retime: {} has no \"{}\"",
               file, key);
  try {
    return j[key].get<T>();
  } catch (const Json::exception&) {
    throw InvalidArgument(fmt::format("retime: {}: \"{}\" has the wrong type", file, key));
  }
}

// The figures of one run folder (its summary.json and metrics.jsonl).
RunTiming timingOf(const fs::path& folder, const Json& config, int64_t iterationsToTarget) {
  const std::string file = (folder / "summary.json").string();
  const Json summary = readJson(folder / "summary.json", " (the run did not finish)");
  RunTiming t;
  t.cluster = config.value("cluster", "");
  t.netModel = config.value("net_model", "");
  t.compute = config.value("compute", "");
  t.iterations = field<int64_t>(summary, "iterations", file);
  t.trainTime = field<double>(summary, "train_time", file);
  t.timePerIteration = t.iterations > 0 ? t.trainTime / double(t.iterations) : 0;
  t.bytesSentPerRank = field<std::vector<uint64_t>>(summary, "bytes_sent_per_rank", file);
  const auto comm = field<std::vector<double>>(summary, "comm_time_per_rank", file);
  const auto roles = field<std::vector<std::string>>(summary, "role_per_rank", file);
  double sum = 0;
  int workers = 0;
  for (size_t i = 0; i < comm.size() && i < roles.size(); ++i) {
    if (roles[i] == "server") continue;
    sum += comm[i];
    ++workers;
  }
  t.commShare = workers > 0 && t.trainTime > 0 ? sum / workers / t.trainTime : 0;
  // The training time at the evaluation of that iteration (the time to
  // target of a run that reached it there).
  if (iterationsToTarget > 0) {
    for (const Json& line : readMetrics(folder)) {
      if (line.value("kind", "") == "eval" && line["iteration"].is_number_integer() &&
          line["iteration"].get<int64_t>() == iterationsToTarget && line["sim_time"].is_number()) {
        t.timeToTarget = line["sim_time"].get<double>();
        t.iterationsToTarget = iterationsToTarget;
        break;
      }
    }
  }
  return t;
}

std::string given(const Json& config, const char* key) {
  return config.contains(key) && config[key].is_string() ? config[key].get<std::string>() : "";
}

}  // namespace

namespace {

// config.json of `folder`; InvalidArgument when the folder or the file is missing.
Json readRunConfig(const std::string& folder) {
  TETRAD_CHECK(fs::is_directory(folder), InvalidArgument, "retime: no such run folder '{}'",
               folder);
  return readJson(fs::path(folder) / "config.json", " (not a `tetrad train` run folder)");
}

TrainConfig configOfJson(const Json& j, const std::string& file) {
  TrainConfig c;
  c.sync = field<std::string>(j, "sync", file);
  c.arch = field<std::string>(j, "arch", file);
  c.compress = field<std::string>(j, "compress", file);
  c.sched = field<std::string>(j, "sched", file);
  c.psPullCompress = field<std::string>(j, "ps_pull_compress", file);
  if (!given(j, "gossip").empty()) c.gossip = given(j, "gossip");
  c.psPartition = std::to_string(field<uint64_t>(j, "ps_partition_bytes", file));
  c.model = field<std::string>(j, "model", file);
  c.data = field<std::string>(j, "data", file);
  c.dataDir = given(j, "data_dir");
  c.trainSamples = field<size_t>(j, "train_samples", file);
  c.testSamples = field<size_t>(j, "test_samples", file);
  c.partition = field<std::string>(j, "partition", file);
  c.workers = field<int>(j, "workers", file);
  c.cluster = field<std::string>(j, "cluster", file);
  c.timeout = field<double>(j, "timeout", file);
  c.compute = field<std::string>(j, "compute", file);
  c.stragglers = field<std::vector<std::string>>(j, "stragglers", file);
  c.computeNoise = field<double>(j, "compute_noise", file);
  c.epochs = field<int>(j, "epochs", file);
  c.batchSize = field<int>(j, "batch_size", file);
  c.lr = field<double>(j, "lr", file);
  c.lrScaling = field<std::string>(j, "lr_scaling", file);
  c.momentum = field<double>(j, "momentum", file);
  c.weightDecay = field<double>(j, "weight_decay", file);
  c.warmup = field<double>(j, "warmup_epochs", file);
  c.lrSchedule = field<std::string>(j, "lr_schedule", file);
  c.bucketSize = std::to_string(field<uint64_t>(j, "bucket_bytes", file));
  c.seed = field<uint64_t>(j, "seed", file);
  c.evalEvery = field<int64_t>(j, "eval_every", file);
  c.logEvery = field<int64_t>(j, "log_every", file);
  c.maxIters = field<int64_t>(j, "max_iters", file);
  c.targetAccuracy = field<double>(j, "target_accuracy", file);
  c.onNonFinite = field<std::string>(j, "on_nonfinite", file);
  // Runs from before codec charging recorded no codec_cost: they charged none.
  c.codecCost = j.value("codec_cost", std::string("none"));
  c.timingOnly = j.value("timing_only", false);
  // The network model: a name config.json records (lv08, cm02,
  // profile:FILE) is chosen again, and the --sim-cfg items it did not add
  // are given again; "sim-cfg:MODEL" (chosen by --sim-cfg alone) comes back
  // with the items.
  const std::string netModel = given(j, "net_model");
  std::vector<std::string> items = field<std::vector<std::string>>(j, "sim_config", file);
  std::vector<std::string> implied;
  if (!netModel.empty() && !netModel.starts_with("sim-cfg:") && netModel != "real") {
    c.netModel = netModel;
    implied = model::resolveNetModel(netModel).simConfig;
  }
  for (const std::string& item : items) {
    if (item == "network/optim:Full") continue;  // added for checkpointing push-pull runs
    if (std::find(implied.begin(), implied.end(), item) != implied.end()) continue;
    c.simConfig.push_back(item);
  }
  return c;
}

}  // namespace

TrainConfig configOfRun(const std::string& folder) {
  return configOfJson(readRunConfig(folder), (fs::path(folder) / "config.json").string());
}

RetimeResult retimeRun(const RetimeRequest& request) {
  const Json config = readRunConfig(request.run);
  const fs::path folder(request.run);
  TrainConfig c = configOfJson(config, (folder / "config.json").string());
  const Json summary = readJson(folder / "summary.json", " (the run did not finish)");
  readMetrics(folder);  // a finished run has them
  const std::string status = summary.value("status", "finished");
  TETRAD_CHECK(status != "interrupted", InvalidArgument,
               "retime: {} was interrupted: resume it (tetrad train --resume {}) first",
               request.run, request.run);
  const std::string& sync = c.sync;
  TETRAD_CHECK(makeSyncPolicy(sync)->mode() != SyncMode::kPushPull, InvalidArgument,
               "retime: {} is asynchronous (--sync {}): its trajectory depends on timing, so its "
               "iterations do not carry over to another network",
               request.run, sync);
  TETRAD_CHECK(request.cluster.starts_with("sim:"), InvalidArgument,
               "retime: --cluster '{}': retiming simulates the network, give sim:SPEC",
               request.cluster);
  TETRAD_CHECK(!c.cluster.starts_with("mpi"), InvalidArgument,
               "retime: {} ran under MPI: its times are wall times, not a function of the run",
               request.run);
  if (!request.compute.empty()) {
    c.compute = request.compute;
  } else {
    TETRAD_CHECK(parseComputeSpec(c.compute).kind != ComputeSpec::Kind::kMeasured, InvalidArgument,
                 "retime: {} charged measured compute times (--compute {}): give a compute "
                 "model with --compute fixed:DURATION or flops:GFLOPS",
                 request.run, c.compute);
  }
  if (!request.codecCost.empty()) {
    c.codecCost = request.codecCost;
  } else if (c.codecCost == "measured" || c.codecCost == "auto") {
    c.codecCost = std::string("profile:") + model::kDefaultCodecProfile;
  }
  const int ranks = field<int>(config, "workers", "config.json") +
                    field<int>(config, "server_ranks", "config.json");
  const int hosts = fixedHostCount(request.cluster);
  TETRAD_CHECK(hosts <= 0 || hosts == ranks, InvalidArgument,
               "retime: cluster '{}' has {} hosts but {} runs {} ranks: retiming keeps the "
               "worker count (the iterations depend on it)",
               request.cluster, hosts, request.run, ranks);
  if (!request.netModel.empty()) {
    c.netModel = request.netModel;
    c.simConfig.clear();
  }
  const int64_t iterationsToTarget = summary.contains("iterations_to_target") &&
                                             summary["iterations_to_target"].is_number_integer()
                                         ? summary["iterations_to_target"].get<int64_t>()
                                         : -1;

  RetimeResult result;
  result.run = request.run;
  result.method = fmt::format("{} {} {} sched {}", c.sync, c.arch, c.compress, c.sched);
  result.workers = c.workers;
  result.original = timingOf(folder, config, iterationsToTarget);

  // The same run, timing-only, on the new network, for the same iterations.
  c.cluster = request.cluster;
  c.maxIters = result.original.iterations;
  if (request.toTarget) {
    TETRAD_CHECK(!request.asRun, InvalidArgument,
                 "retime: --to-target replays part of the run; --as-run writes the whole run");
    TETRAD_CHECK(result.original.timeToTarget >= 0, InvalidArgument,
                 "retime: --to-target: {} never reached its target accuracy", request.run);
    c.maxIters = iterationsToTarget;
  }
  c.timingOnly = true;
  c.quiet = true;
  c.announce = false;
  c.timeline = "off";
  c.targetAccuracy = 0;
  c.name.clear();
  TETRAD_CHECK(!request.asRun || !request.out.empty(), InvalidArgument,
               "retime: --as-run writes a run folder: give it with --out DIR");
  const bool keep = !request.out.empty();
  c.out = request.asRun ? (fs::path(request.out) / "timing-only").string()
          : keep
              ? request.out
              : (fs::temp_directory_path() / fmt::format("tetrad-retime-{}-{}", ::getpid(),
                                                         fs::path(request.run).filename().string()))
                    .string();
  // A replay left by an earlier attempt (an interrupted sweep) starts over.
  if (!keep || request.asRun) fs::remove_all(c.out);
  if (request.asRun) {
    for (const char* file : {"summary.json", "metrics.jsonl", "config.json"}) {
      fs::remove(fs::path(request.out) / file);
    }
  }
  runTraining(c);
  const Json retimedConfig = readJson(fs::path(c.out) / "config.json", "");
  result.retimed = timingOf(c.out, retimedConfig, iterationsToTarget);
  if (request.asRun) {
    writeRetimedRunFolder(request.run, c.out, request.out, result.retimed.timeToTarget);
    result.folder = request.out;
  } else if (keep) {
    result.folder = c.out;
  } else {
    std::error_code ignored;
    fs::remove_all(c.out, ignored);
  }
  return result;
}

namespace {

Json timingJson(const RunTiming& t) {
  Json j;
  j["cluster"] = t.cluster;
  j["net_model"] = t.netModel;
  j["compute"] = t.compute;
  j["iterations"] = t.iterations;
  j["train_time"] = t.trainTime;
  j["time_per_iteration"] = t.timePerIteration;
  j["time_to_target"] = t.timeToTarget >= 0 ? Json(t.timeToTarget) : Json(nullptr);
  j["iterations_to_target"] =
      t.iterationsToTarget >= 0 ? Json(t.iterationsToTarget) : Json(nullptr);
  j["comm_share"] = t.commShare;
  j["bytes_sent_per_rank"] = t.bytesSentPerRank;
  return j;
}

std::string seconds(double s) {
  if (s < 0) return "-";
  return s < 1 ? fmt::format("{:.3f} ms", s * 1e3) : fmt::format("{:.3f} s", s);
}

double meanBytes(const std::vector<uint64_t>& bytes) {
  double sum = 0;
  for (uint64_t b : bytes) sum += double(b);
  return bytes.empty() ? 0 : sum / double(bytes.size());
}

}  // namespace

std::string RetimeResult::toJson() const {
  Json j = timingJson(retimed);
  j["run"] = run;
  j["method"] = method;
  j["workers"] = workers;
  j["original"] = timingJson(original);
  if (!folder.empty()) j["folder"] = folder;
  return j.dump(2);
}

std::string RetimeResult::toText() const {
  std::ostringstream out;
  out << fmt::format("tetrad retime: {} ({}, {} workers)\n", run, method, workers);
  auto row = [&](const std::string& name, const std::string& a, const std::string& b) {
    out << fmt::format("  {:<22}{:>24}  {:>24}\n", name, a, b);
  };
  row("", "original", "retimed");
  row("cluster", original.cluster, retimed.cluster);
  row("network model", original.netModel, retimed.netModel);
  row("compute", original.compute, retimed.compute);
  row("iterations", std::to_string(original.iterations), std::to_string(retimed.iterations));
  row("time per iteration", seconds(original.timePerIteration), seconds(retimed.timePerIteration));
  row("training time", seconds(original.trainTime), seconds(retimed.trainTime));
  auto target = [](const RunTiming& t) {
    return t.timeToTarget < 0
               ? std::string("-")
               : fmt::format("{} (iter {})", seconds(t.timeToTarget), t.iterationsToTarget);
  };
  row("time to target", target(original), target(retimed));
  row("communication share", fmt::format("{:.1f}%", 100 * original.commShare),
      fmt::format("{:.1f}%", 100 * retimed.commShare));
  row("bytes sent/rank (mean)", fmt::format("{:.0f}", meanBytes(original.bytesSentPerRank)),
      fmt::format("{:.0f}", meanBytes(retimed.bytesSentPerRank)));
  if (!folder.empty()) out << "  retimed run folder    " << folder << "\n";
  return out.str();
}

RetimeOutcome retimeOrRefusal(const RetimeRequest& request) {
  RetimeOutcome outcome;
  try {
    const RetimeResult r = retimeRun(request);
    outcome.timeToTarget = r.retimed.timeToTarget;
    outcome.timePerIteration = r.retimed.timePerIteration;
  } catch (const InvalidArgument& e) {
    outcome.refusal = e.what();
  } catch (const Unsupported& e) {
    outcome.refusal = e.what();
  }
  return outcome;
}

}  // namespace tetrad::train
