// `tetrad advise --results DIR --map`: which method of a finished sweep
// reaches the target first on which network (experiment/method_map.h).
//
// For each worker count the sweep trained, its first cluster with that count
// is the source: each method's finished runs there, one per seed. In every
// cell of the bandwidth × latency grid (star networks "sim:BW,LAT"), per
// seed, then the mean over the seeds:
//   synchronous methods (bsp, local:H, post-local, gossip D-PSGD/CHOCO,
//     every schedule): retimed exactly (train/timing/retime.h): the run's own
//     iterations, up to the one where it reached its target, replayed on the
//     cell's network (map_replays.h: --jobs replays at a time, each its own
//     process); its time to target there;
//   asynchronous methods (ssp, asp, AD-PSGD): the cost model's time per
//     iteration on the cell's network × the run's measured iterations to
//     target, marked "cost model" (an asynchronous run with an overlapping
//     schedule is not mapped: the cost model has no overlap).
// A method with a seed that never reached the target is mapped as never
// reaching it.
#include "tetrad/mapping/advise_map.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/map_baselines.h"
#include "tetrad/experiment/method_map.h"
#include "tetrad/experiment/run_record.h"
#include "tetrad/mapping/map_replays.h"
#include "tetrad/mapping/map_runs.h"
#include "tetrad/mapping/map_text.h"
#include "tetrad/model/iteration_theory.h"
#include "tetrad/model/method_cost.h"
#include "tetrad/model/method_traits.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/model/noise_ratio_fit.h"
#include "tetrad/model/workload.h"
#include "tetrad/train/timing/retime.h"

namespace tetrad::mapping {
namespace {

// The --replay-with binary, checked, or this build's.
std::string replayProgram(const std::string& exe, const std::string& thisBuild) {
  if (exe.empty()) return thisBuild;
  std::error_code ec;
  const auto status = std::filesystem::status(exe, ec);
  TETRAD_CHECK(!ec && std::filesystem::is_regular_file(status) &&
                   (status.permissions() & std::filesystem::perms::owner_exec) !=
                       std::filesystem::perms::none,
               InvalidArgument, "--replay-with '{}': not an executable file", exe);
  return std::filesystem::canonical(exe).string();
}

// One method's line of the map: its entries per cell, and the replays its
// retimed cells need (run later, `jobs` at a time).
struct Planned {
  std::string label, status;  // status: the line printed for the method
  bool retime = false;
  std::vector<std::pair<size_t, experiment::MapEntry>> entries;  // (cell, entry)
  size_t firstReplay = 0;           // retimed: replays [firstReplay, + entries × seeds)
  double evaluationInterval = NAN;  // iterations between evaluations (NaN: epoch ends only)
};

// One `tetrad advise --map`: the phases of the header comment, in order.
// A method's kind for the map's baselines, from its policies' traits.
experiment::MethodKind kindOf(const experiment::RunRecord& run) {
  try {
    const model::MethodTraits t = model::methodTraits({run.sync, run.arch, run.compress});
    if (t.plainBsp()) return experiment::MethodKind::kPlainBsp;
    if (t.synchronous && t.halfPrecision) return experiment::MethodKind::kHalfPrecision;
    if (t.errorFeedback) return experiment::MethodKind::kErrorFeedback;
    if (t.modelAveraging) return experiment::MethodKind::kModelAveraging;
  } catch (const InvalidArgument&) {
  }
  return experiment::MethodKind::kOther;
}

class AdviseMap {
 public:
  explicit AdviseMap(const AdviseMapFlags& flags) : f_(flags) {
    TETRAD_CHECK(!flags.thisBuild.empty(), InvalidArgument,
                 "--map: this build's binary is not known");
    f_.exe = replayProgram(flags.exe, flags.thisBuild);
    TETRAD_CHECK(f_.jobs >= 1, InvalidArgument, "--jobs {}: need at least 1", f_.jobs);
    TETRAD_CHECK(f_.noiseRatio >= 0 && std::isfinite(f_.noiseRatio), InvalidArgument,
                 "--noise-ratio must be a finite number >= 0, got {}", f_.noiseRatio);
    // A bad --net-model is refused once, here, not as "not mapped" per method.
    if (!f_.netModel.empty()) model::resolveNetModel(f_.netModel);
    bandwidths_ = experiment::parseBandwidthAxis(f_.bandwidths, "--map-bandwidth");
    latencies_ = experiment::parseLatencyAxis(f_.latencies, "--map-latency");
    scales_ = experiment::parseComputeScales(f_.computeScales, "--map-compute");
    records_ = experiment::readRunFolders(f_.results);
    groups_ = methodRunsOf(records_, workerCounts_);
    TETRAD_CHECK(!groups_.empty(), InvalidArgument,
                 "--map: '{}' holds no finished simulated run to map", f_.results);
  }

  void run() {
    printHeaderAndMakeCells();
    chooseNoiseRatio();
    std::vector<Planned> planned;
    for (const MethodRuns& group : groups_) planned.push_back(plan(group));
    // The replays, then each retimed entry's mean over its seeds.
    const std::vector<MapReplayResult> replayed =
        replayCached(replays_, f_.jobs, f_.exe, f_.thisBuild,
                     (std::filesystem::path(f_.results) / ".map-replays").string(),
                     (std::filesystem::path(f_.results) / "map_replays.jsonl").string());
    for (Planned& p : planned) finish(p, replayed);
    const experiment::MapFiles files = experiment::writeMap(f_.results, cells_);
    printWinners();
    printAgreement();
    std::printf("map: %s\n", files.csv.c_str());
    for (const std::string& image : files.images) std::printf("     %s\n", image.c_str());
  }

 private:
  void printHeaderAndMakeCells() {
    std::string countsText;
    for (int w : workerCounts_) countsText += (countsText.empty() ? "" : ", ") + std::to_string(w);
    std::string scalesText;
    for (double s : scales_) scalesText += fmt::format("{}{:g}", scalesText.empty() ? "" : ", ", s);
    std::printf(
        "# tetrad advise --map: %zu methods x worker counts of %s (%s workers) on %zu x %zu "
        "star networks%s\n",
        groups_.size(), f_.results.c_str(), countsText.c_str(), bandwidths_.values.size(),
        latencies_.values.size(),
        scales_.size() > 1 ? (" at compute x " + scalesText).c_str() : "");
    severalCounts_ = workerCounts_.size() > 1;
    for (int workers : workerCounts_) {
      for (double scale : scales_) {
        for (double latency : latencies_.values) {
          for (double bandwidth : bandwidths_.values) {
            experiment::MapCell cell{bandwidth, latency, {}, severalCounts_ ? workers : 0};
            cell.computeScale = scale;
            cells_.push_back(cell);
          }
        }
      }
    }
  }

  // The advisor's iterations: BSP's measured iterations to target (per
  // worker count, mean over its seeds) × the convergence theory's multiplier
  // (iteration_theory.h) at the noise ratio s, given or fitted to the
  // multipliers this sweep measured (noise_ratio_fit.h).
  void chooseNoiseRatio() {
    error_ =
        recordedCompressionError(records_, model::modelWorkload(groups_.front().first().model));
    baselineIterations_ = baselineIterationsOf(groups_);
    const std::vector<model::MeasuredMultiplier> measured =
        measuredMultipliersOf(groups_, baselineIterations_);
    std::optional<model::NoiseRatioFit> fit;
    try {
      fit = model::fitNoiseRatio(measured, error_);
    } catch (const InvalidArgument&) {
      if (f_.fitNoiseRatio) throw;
    }
    noiseRatio_ = f_.fitNoiseRatio ? fit->noiseRatio : f_.noiseRatio;
    if (fit) {
      std::printf(
          "# noise ratio s fitted to the measured iterations of %d methods: s = %.4g (rms log "
          "error %.3f; at s = %g: %.3f)%s\n",
          fit->points, fit->noiseRatio, fit->rmsLogError, model::kUnitNoiseRatio,
          fit->rmsLogErrorAtOne,
          f_.fitNoiseRatio
              ? ""
              : fmt::format("; used only for comparison, s = {:g}", noiseRatio_).c_str());
    }
    // The agreement is also counted at these (label, s), for comparison.
    if (noiseRatio_ != model::kDefaultNoiseRatio)
      otherRatios_.emplace_back("the default", model::kDefaultNoiseRatio);
    if (fit && !f_.fitNoiseRatio && std::abs(std::log(fit->noiseRatio / noiseRatio_)) > 1e-3)
      otherRatios_.emplace_back("fitted to this sweep", fit->noiseRatio);
    otherPredictions_.resize(otherRatios_.size());
  }

  double baselineOf(int workers) const {
    auto it = baselineIterations_.find(workers);
    return it == baselineIterations_.end() ? NAN : it->second;
  }

  // Predicted iterations to target; infinite where they exceed the
  // iterations the run had (the advisor then predicts it never reaches the
  // target, as a run of that length would not).
  double predictedIterationsAt(const experiment::RunRecord& run, int workers, double s) const {
    try {
      const model::IterationEstimate estimate =
          model::predictIterations(model::canonicalMethod({run.sync, run.arch, run.compress}),
                                   run.workers, s, momentumOf(run), error_);
      if (!estimate.covered) return double(NAN);
      const double its = baselineOf(workers) * estimate.multiplier;
      return run.iterations > 0 && its > double(run.iterations) ? double(INFINITY) : its;
    } catch (const InvalidArgument&) {
    }
    return double(NAN);
  }

  Planned plan(const MethodRuns& group) {
    const experiment::RunRecord& run = group.first();
    anyBaseline_ = anyBaseline_ || std::isfinite(baselineOf(group.workers));
    const train::TrainConfig config = train::configOfRun(run.folder);
    const std::string netModel = f_.netModel.empty() ? config.netModel : f_.netModel;
    const double predictedIterations = predictedIterationsAt(run, group.workers, noiseRatio_);
    const experiment::MethodKind kind = kindOf(run);
    // Every seed must reach the target for the method to be mapped as
    // reaching it: a mean over the seeds that happened to reach it would
    // flatter an unreliable method.
    size_t reachedSeeds = 0;
    std::vector<double> iterations;
    for (const experiment::RunRecord& seed : group.seeds) {
      reachedSeeds += std::isfinite(seed.timeToTarget) ? 1 : 0;
      iterations.push_back(seed.iterationsToTarget);
    }
    const bool reached = reachedSeeds == group.seeds.size();
    Planned p;
    p.retime = synchronous(run) && reached;
    if (config.evalEvery > 0) p.evaluationInterval = double(config.evalEvery);
    p.label =
        severalCounts_ ? fmt::format("{} ({} workers)", run.method, group.workers) : run.method;
    if (!p.retime && overlapsBackward(run)) {
      p.status =
          fmt::format("not mapped: the cost model covers --sched none only, not {}", run.sched);
      return p;
    }
    const std::string seedsText =
        group.seeds.size() > 1 ? fmt::format(", mean of {} seeds", group.seeds.size()) : "";
    p.status = !reached   ? fmt::format("reached the target with {} of {} seeds: never wins",
                                        reachedSeeds, group.seeds.size())
               : p.retime ? "retimed" + seedsText
                          : "cost model x measured iterations to target" + seedsText;
    // The run's configuration at each compute scale of the axis.
    std::map<double, train::TrainConfig> scaled;
    try {
      for (double scale : scales_) {
        scaled[scale] = config;
        scaled[scale].compute = scaledCompute(config.compute, scale);
      }
    } catch (const InvalidArgument& e) {
      p.retime = false;
      p.status = fmt::format("not mapped: {}", e.what());
      return p;
    }
    p.firstReplay = replays_.size();
    for (size_t c = 0; c < cells_.size(); ++c) {
      experiment::MapCell& cell = cells_[c];
      if (severalCounts_ && cell.workers != group.workers) continue;
      const std::string spec = experiment::mapClusterSpec(cell.bandwidth, cell.latency);
      const train::TrainConfig& cellConfig = scaled.at(cell.computeScale);
      const std::string compute = cell.computeScale == 1 ? "" : cellConfig.compute;
      // The cell's R, from its plain BSP method (fused buckets) under the cost model.
      if (kind == experiment::MethodKind::kPlainBsp && std::isnan(cell.commToCompute) &&
          run.bucketBytes != 0)
        cell.commToCompute = costModelCommToCompute(run, cellConfig, spec, netModel);
      experiment::MapEntry entry;
      entry.method = run.method;
      entry.timeToTarget = NAN;
      entry.source = p.retime ? "retimed" : "cost model";
      entry.iterationsToTarget = meanAndStd(iterations).first;
      entry.kind = kind;
      entry.predictedTimePerIteration = costModelTimePerIteration(
          run, cellConfig, spec, netModel,
          std::isfinite(predictedIterations) ? predictedIterations : entry.iterationsToTarget);
      entry.predictedIterations = predictedIterations;
      entry.seeds = int(group.seeds.size());
      for (size_t k = 0; k < otherRatios_.size(); ++k) {
        const double its = predictedIterationsAt(run, group.workers, otherRatios_[k].second);
        otherPredictions_[k][{c, run.method}] = {
            its, costModelTimePerIteration(run, cellConfig, spec, netModel,
                                           std::isfinite(its) ? its : entry.iterationsToTarget)};
      }
      if (p.retime) {
        for (const experiment::RunRecord& seed : group.seeds)
          replays_.push_back({seed.folder, spec, f_.netModel, compute});
      } else if (reached) {
        // Cost model × measured iterations (mean over seeds), on the run's
        // network model unless --net-model says otherwise.
        entry.timePerIteration = entry.predictedTimePerIteration;
        std::vector<double> times;
        for (const experiment::RunRecord& seed : group.seeds)
          times.push_back(entry.timePerIteration * seed.iterationsToTarget);
        std::tie(entry.timeToTarget, entry.timeStd) = meanAndStd(times);
        entry.seedTimes = times;
      }
      p.entries.emplace_back(c, entry);
    }
    return p;
  }

  // A planned method's replays into its entries, the entries into the cells,
  // and its line printed.
  void finish(Planned& p, const std::vector<MapReplayResult>& replayed) {
    size_t next = p.firstReplay;
    std::string refusal;
    for (auto& [c, entry] : p.entries) {
      if (!p.retime || !refusal.empty()) break;
      std::vector<double> times, perIteration;
      for (int s = 0; s < entry.seeds; ++s, ++next) {
        const MapReplayResult& r = replayed[next];
        if (!r.refusal.empty()) refusal = r.refusal;
        times.push_back(r.timeToTarget);
        perIteration.push_back(r.timePerIteration);
      }
      std::tie(entry.timeToTarget, entry.timeStd) = meanAndStd(times);
      entry.timePerIteration = meanAndStd(perIteration).first;
      entry.seedTimes = times;
    }
    if (!refusal.empty()) {
      // Timing-only cannot replay it, and the cost model would not
      // describe it: not mapped, rather than mapped wrong.
      p.status = fmt::format("not mapped: {}", refusal);
      p.entries.clear();
    }
    // The cost model against the retimed time per iteration, over the cells.
    double low = INFINITY, high = -INFINITY;
    for (auto& [c, entry] : p.entries) {
      entry.evaluationSeconds = p.evaluationInterval * entry.timePerIteration;
      cells_[c].entries.push_back(entry);
      const double ratio = entry.predictedTimePerIteration / entry.timePerIteration;
      if (p.retime && std::isfinite(ratio)) {
        low = std::min(low, ratio);
        high = std::max(high, ratio);
      }
    }
    if (low <= high) {
      p.status +=
          fmt::format("; cost model {:.2f}-{:.2f}x the retimed time per iteration", low, high);
    }
    std::printf("# %-24s %s\n", p.label.c_str(), p.status.c_str());
  }

  void printWinners() const {
    std::fputs(winnerTable(bandwidths_, latencies_, cells_).c_str(), stdout);
  }

  // The advisor (cost model × theory) against the map's winners, and at
  // the other noise ratios.
  void printAgreement() const {
    const std::string fitted = f_.fitNoiseRatio ? ", fitted" : "";
    std::fputs(
        agreementText(cells_, anyBaseline_, fmt::format("{:.4g}{}", noiseRatio_, fitted)).c_str(),
        stdout);
    if (!anyBaseline_) return;
    for (size_t k = 0; k < otherRatios_.size(); ++k) {
      std::vector<experiment::MapCell> other = cells_;
      for (size_t c = 0; c < other.size(); ++c) {
        for (experiment::MapEntry& e : other[c].entries) {
          std::tie(e.predictedIterations, e.predictedTimePerIteration) =
              otherPredictions_[k].at({c, e.method});
        }
      }
      const experiment::MapAgreement a = experiment::countAgreement(other);
      std::printf("# advisor at noise ratio %.4g (%s): agrees in %d of %d cells; %d more ties\n",
                  otherRatios_[k].second, otherRatios_[k].first.c_str(), a.agreed, a.cells, a.tied);
    }
  }

  AdviseMapFlags f_;
  experiment::MapAxis bandwidths_, latencies_;
  std::vector<experiment::RunRecord> records_;
  std::vector<int> workerCounts_;
  std::vector<MethodRuns> groups_;
  bool severalCounts_ = false;
  std::vector<experiment::MapCell> cells_;
  model::CompressionErrorFunction error_;
  std::map<int, double> baselineIterations_;
  double noiseRatio_ = 1;
  std::vector<std::pair<std::string, double>> otherRatios_;
  // (cell, method) -> predicted iterations and time per iteration, per other s.
  using Predicted = std::map<std::pair<size_t, std::string>, std::pair<double, double>>;
  std::vector<Predicted> otherPredictions_;
  std::vector<MapReplay> replays_;
  std::vector<double> scales_;  // the compute axis
  bool anyBaseline_ = false;
};

}  // namespace

void runAdviseMap(const AdviseMapFlags& flags) {
  AdviseMap(flags).run();
}

}  // namespace tetrad::mapping
