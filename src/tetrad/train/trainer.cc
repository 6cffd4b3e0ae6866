#include "tetrad/train/trainer.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/libtorch_parts.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/timing/timing_trainer.h"
#include "tetrad/transport/analytic_network.h"

namespace tetrad::train {
namespace {
template <typename T>
double mean(const std::vector<T>& values) {
  if (values.empty()) return 0;
  return double(std::accumulate(values.begin(), values.end(), T{})) / double(values.size());
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
  if (!allreduceNetwork.empty()) {
    // allreduce:auto: the algorithm rank 0 ran per vector size.
    nlohmann::ordered_json choices = nlohmann::ordered_json::array();
    for (const AllreduceSelection& s : allreduceChoices) {
      choices.push_back({{"floats", s.count},
                         {"wire", toString(s.wire)},
                         {"algorithm", toString(s.algorithm)},
                         {"calls", s.calls},
                         {"predicted_seconds", s.predictedSeconds}});
    }
    j["allreduce_auto"] = {{"network", allreduceNetwork}, {"choices", choices}};
  }
  const nlohmann::ordered_json resized =
      nlohmann::ordered_json::parse(resizes, nullptr, /*allow_exceptions=*/false);
  if (resized.is_array() && !resized.empty()) j["resizes"] = resized;
  const nlohmann::ordered_json changes =
      nlohmann::ordered_json::parse(membership, nullptr, /*allow_exceptions=*/false);
  if (changes.is_array() && !changes.empty()) j["membership"] = changes;
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
  // Compressor work charged per rank (codec_charge.h), and per iteration:
  // the workers' mean over the run's iterations.
  j["codec_charge"] = codecCharge;
  j["codec_time_per_rank"] = codecTime;
  {
    double workerCodec = 0;
    int counted = 0;
    for (size_t i = 0; i < codecTime.size() && i < roles.size(); ++i) {
      if (roles[i] == "server") continue;
      workerCodec += codecTime[i];
      ++counted;
    }
    j["codec_time"] =
        counted > 0 && iterations > 0 ? workerCodec / counted / double(iterations) : 0.0;
  }
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
  text += fmt::format("  per rank (mean)    compute {}, codec {}, communication {}\n",
                      formatSeconds(mean(computeTime)), formatSeconds(mean(codecTime)),
                      formatSeconds(mean(commTime)));
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

TrainSummary runTraining(const TrainConfig& flags) {
  const ResolvedConfig config = resolveConfig(flags);
  if (config.given.timingOnly) return runTimingOnly(config);
  if (!config.membership.empty()) return runWithMembership(config);
  return runRealTraining(config);
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
  summary.globalBatch = globalBatchOf(config, r.workers);
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
    summary.codecTime.push_back(rank.codecTime);
  }
  summary.stalenessHistogram = r.stalenessHistogram;
  summary.allreduceNetwork = r.allreduceNetwork;
  summary.resizes = r.resizes;
  summary.codecCharge = config.codecCharge.describe();
  summary.allreduceChoices = r.allreduceChoices;
  return summary;
}

}  // namespace tetrad::train
