#include "tetrad/mapping/map_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/experiment/run_groups.h"
#include "tetrad/model/codec_cost.h"
#include "tetrad/model/compression_error.h"
#include "tetrad/model/method_cost.h"
#include "tetrad/model/network_model.h"
#include "tetrad/model/schedule_cost.h"
#include "tetrad/model/warmup_cost.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/compute/compute_model.h"

namespace tetrad::mapping {
namespace {

// The run's compute model for the cost model, resolved as the trainer
// resolves it (throughput:S is batch / S seconds; device:NAME the profile's
// throughput for the model, else its FLOP rate): a duration or a rate.
model::ComputeTime computeOfRun(const train::TrainConfig& config, const model::Workload& w) {
  const std::string& spec = config.compute;
  const train::ComputeSpec c = train::resolveComputeModel(
      train::parseComputeSpec(spec.empty() ? "measured" : spec), config.model, config.batchSize);
  if (c.kind == train::ComputeSpec::Kind::kFixed) {
    return model::computeTime(w, config.batchSize, c.seconds, -1);
  }
  if (c.kind == train::ComputeSpec::Kind::kFlops) {
    return model::computeTime(w, config.batchSize, -1, c.gflops);
  }
  throw InvalidArgument(fmt::format(
      "--map: run {} charged measured compute times (--compute {}): the cost model needs fixed:, "
      "flops:, throughput: or device:",
      config.out, spec));
}

// A codec profile, read once per name for the whole map (every run and
// cell asks for it).
std::shared_ptr<const model::CodecProfile> cachedCodecProfile(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const model::CodecProfile>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& entry = cache[name];
  if (!entry) entry = std::make_shared<const model::CodecProfile>(model::loadCodecProfile(name));
  return entry;
}

}  // namespace

// Push-pull policies (ssp, asp): their trajectory depends on timing. A
// record's sync is the canonical spec config.json recorded.
bool synchronous(const experiment::RunRecord& run) {
  return makeSyncPolicy(run.sync)->mode() != SyncMode::kPushPull;
}

bool overlapsBackward(const experiment::RunRecord& run) {
  return !run.sched.empty() && makeScheduler(run.sched)->overlapsBackward();
}

namespace {

// The cost model's context for `run` on `cluster`: its workload and buckets,
// its compute, its codec charge and guard. Throws as the model does.
model::ModelContext costModelContext(const experiment::RunRecord& run,
                                     const train::TrainConfig& config, const std::string& cluster,
                                     const std::string& netModel) {
  model::ModelContext context;
  context.workload = model::modelWorkload(run.model);
  // The run's buckets (0: one per tensor, the layer-wise ablation).
  if (std::isfinite(run.bucketBytes) && run.bucketBytes >= 0)
    context.workload.bucketBytes = uint64_t(run.bucketBytes);
  context.network = model::withNetModel(model::networkModel(cluster, run.workers), netModel);
  context.compute = computeOfRun(config, context.workload);
  // The codec charge of the retimed runs the map is drawn from (retime.h):
  // none where the run charged none, else its profile (a measured charge
  // is retimed with the host-CPU profile).
  const std::string& codecCost = config.codecCost;
  if (codecCost == "none") {
    context.codec = [](const Compressor&, const model::Workload&) {
      return model::CodecCost{0, 0, false, "none"};
    };
  } else {
    auto profile = cachedCodecProfile(codecCost.starts_with("profile:")
                                          ? codecCost.substr(8)
                                          : std::string(model::kDefaultCodecProfile));
    context.codec = [profile](const Compressor& c, const model::Workload& w) {
      return model::profileCodec(*profile, c, w);
    };
  }
  // The run's non-finite guard (a one-float all-gather per iteration).
  context.nonFiniteGuard = config.onNonFinite != "off";
  if (config.epochs > 0 && run.iterations > 0)
    context.stepsPerEpoch = run.iterations / config.epochs;
  return context;
}

}  // namespace

// The cost model's time per iteration of `run`'s method on `cluster`,
// averaged over the first `iterations` (a compressor's warm-up included,
// warmup_cost.h); NaN where the model refuses the method (e.g. measured
// compute).
double costModelTimePerIteration(const experiment::RunRecord& run, const train::TrainConfig& config,
                                 const std::string& cluster, const std::string& netModel,
                                 double iterations) {
  try {
    const model::ModelContext context = costModelContext(run, config, cluster, netModel);
    const model::Method method = model::canonicalMethod({run.sync, run.arch, run.compress});
    if (overlapsBackward(run)) return model::predictScheduled(method, run.sched, context).seconds;
    return model::meanTimePerIteration(method, context, iterations);
  } catch (const InvalidArgument&) {
    return NAN;
  } catch (const Unsupported&) {
    return NAN;
  }
}

double costModelCommToCompute(const experiment::RunRecord& run, const train::TrainConfig& config,
                              const std::string& cluster, const std::string& netModel) {
  try {
    const model::ModelContext context = costModelContext(run, config, cluster, netModel);
    const model::Prediction p =
        model::predictMethod(model::canonicalMethod({run.sync, run.arch, run.compress}), context);
    return p.computeSeconds > 0 ? p.commSeconds / p.computeSeconds : NAN;
  } catch (const InvalidArgument&) {
    return NAN;
  } catch (const Unsupported&) {
    return NAN;
  }
}

// Every worker count of the sweep (in sweep order) and, for each, the first
// cluster with that count: its finished simulated runs grouped by method
// (tuning runs left out).
std::vector<MethodRuns> methodRunsOf(const std::vector<experiment::RunRecord>& records,
                                     std::vector<int>& workerCounts) {
  std::map<int, std::string> clusterOf;
  for (const experiment::RunRecord& r : records) {
    if (r.status != "ok" || r.engine == "mpi" || r.phase == "tuning") continue;
    if (clusterOf.emplace(r.workers, r.cluster).second) workerCounts.push_back(r.workers);
  }
  std::vector<MethodRuns> groups;
  for (int workers : workerCounts) {
    for (const experiment::RunRecord& r : records) {
      if (r.status != "ok" || r.engine == "mpi" || r.phase == "tuning" || r.workers != workers ||
          r.cluster != clusterOf[workers])
        continue;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const MethodRuns& g) {
        return g.workers == workers && g.first().method == r.method;
      });
      if (it == groups.end()) {
        groups.push_back({workers, {r}});
      } else {
        it->seeds.push_back(r);
      }
    }
  }
  return groups;
}

// Mean and (sample) standard deviation; NaN when any value is NaN.
std::pair<double, double> meanAndStd(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / double(values.size());
  if (values.size() < 2) return {mean, NAN};
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return {mean, std::sqrt(squares / double(values.size() - 1))};
}

std::map<int, double> baselineIterationsOf(const std::vector<MethodRuns>& groups) {
  std::map<int, double> baseline;
  for (const MethodRuns& g : groups) {
    const experiment::RunRecord& b = g.first();
    if (!experiment::isBaselinePoint(b.sync, b.arch, b.compress, b.sched)) continue;
    std::vector<double> its;
    for (const experiment::RunRecord& seed : g.seeds) its.push_back(seed.iterationsToTarget);
    baseline[g.workers] = meanAndStd(its).first;
  }
  return baseline;
}

double momentumOf(const experiment::RunRecord& run) {
  return std::isfinite(run.momentum) ? run.momentum : model::kDefaultMomentum;
}

std::vector<model::MeasuredMultiplier> measuredMultipliersOf(
    const std::vector<MethodRuns>& groups, const std::map<int, double>& baselineIterations) {
  std::vector<model::MeasuredMultiplier> measured;
  for (const MethodRuns& g : groups) {
    const experiment::RunRecord& r = g.first();
    auto baseline = baselineIterations.find(g.workers);
    // Overlap schedules do not change the iterations; one point per method.
    if (baseline == baselineIterations.end() || overlapsBackward(r)) continue;
    std::vector<double> its;
    bool reached = true;
    for (const experiment::RunRecord& seed : g.seeds) {
      reached = reached && std::isfinite(seed.timeToTarget);
      its.push_back(seed.iterationsToTarget);
    }
    if (!reached) continue;
    measured.push_back({model::canonicalMethod({r.sync, r.arch, r.compress}), g.workers,
                        meanAndStd(its).first / baseline->second, momentumOf(r)});
  }
  return measured;
}

model::CompressionErrorFunction recordedCompressionError(
    const std::vector<experiment::RunRecord>& records, const model::Workload& workload) {
  // ω/δ per compressor: measured on the runs' own gradients where the sweep
  // recorded them (summary.json compression_error; the mean over runs),
  // else on Gaussian vectors of the model's buckets.
  auto errors = std::make_shared<std::map<std::string, double>>();
  {
    std::map<std::string, std::pair<double, int>> recorded;
    for (const experiment::RunRecord& r : records) {
      if (r.status != "ok" || !std::isfinite(r.compressionError) || r.compress.empty()) continue;
      try {
        auto& [sum, count] = recorded[makeCompressor(r.compress)->spec()];
        sum += r.compressionError;
        ++count;
      } catch (const InvalidArgument&) {
      }
    }
    std::string names;
    for (const auto& [spec, sumCount] : recorded) {
      (*errors)[spec] = sumCount.first / sumCount.second;
      names += (names.empty() ? "" : ", ") + fmt::format("{} {:.3g}", spec, (*errors)[spec]);
    }
    std::printf(
        "# compression error (omega/delta) on the runs' gradients: %s; others on Gaussian "
        "vectors of the model's buckets\n",
        names.empty() ? "none recorded" : names.c_str());
  }
  return [errors, workload](const Compressor& c) {
    auto it = errors->find(c.spec());
    if (it != errors->end()) return it->second;
    return (*errors)[c.spec()] = model::measureWorkloadError(c, workload).ratio;
  };
}

std::string scaledCompute(const std::string& compute, double scale) {
  if (scale == 1) return compute;
  const train::ComputeSpec scaled = train::scaleComputeTime(
      train::parseComputeSpec(compute.empty() ? "measured" : compute), scale);
  if (scaled.kind == train::ComputeSpec::Kind::kFlops) {
    return fmt::format("flops:{:.9g}", scaled.gflops);
  }
  if (scaled.samplesPerSecond > 0) return fmt::format("throughput:{:.9g}", scaled.samplesPerSecond);
  return fmt::format("fixed:{:.9g}ms", scaled.seconds * 1e3);
}

std::vector<model::MeasuredCluster> measuredClustersOf(const std::string& dir) {
  const std::vector<experiment::RunRecord> records = experiment::readRunFolders(dir);
  const std::vector<experiment::ClusterGroup> groups = experiment::groupRuns(records);
  TETRAD_CHECK(!groups.empty(), InvalidArgument, "--results '{}' holds no finished run", dir);
  std::map<std::string, std::string> modelOf;
  for (const experiment::RunRecord& r : records) {
    if (r.status == "ok" && !modelOf.contains(r.cluster)) modelOf[r.cluster] = r.model;
  }
  std::vector<model::MeasuredCluster> clusters;
  for (const experiment::ClusterGroup& g : groups) {
    model::MeasuredCluster c{g.cluster, g.spec, g.workers, modelOf[g.cluster], NAN, NAN, {}};
    double computeSum = 0;
    int computeCount = 0;
    for (const experiment::MethodRow& row : g.rows) {
      model::MeasuredMethod m;
      m.label = row.method;
      m.method = model::canonicalMethod({row.sync, row.arch, row.compress});
      m.baseline = row.isBaseline;
      m.finalAccuracy = row.accuracyMean;
      const bool reached = row.seeds > 0 && row.reachedTarget == row.seeds;
      m.timeToTarget = reached ? row.timeToTarget : NAN;
      m.timePerIter = row.timePerIter;
      // The models cover schedules after the backward pass only: an arch that no
      // model knows keeps such a method out of the advised candidates (it still
      // counts as measured).
      if (row.role.overlapped) m.method.arch = "sched:" + row.sched;
      if (std::isfinite(row.targetAccuracy)) c.targetAccuracy = row.targetAccuracy;
      if (std::isfinite(row.computePerIter)) {
        computeSum += row.computePerIter;
        ++computeCount;
      }
      c.methods.push_back(std::move(m));
    }
    if (computeCount > 0) c.computePerIter = computeSum / computeCount;
    clusters.push_back(std::move(c));
  }
  return clusters;
}

}  // namespace tetrad::mapping
