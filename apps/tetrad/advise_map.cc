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
#include "advise_map.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "command.h"
#include "map_replays.h"
#include "map_runs.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/method_map.h"
#include "tetrad/experiment/run_record.h"
#include "tetrad/model/iteration_theory.h"
#include "tetrad/model/method_cost.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/model/noise_ratio_fit.h"
#include "tetrad/model/workload.h"
#include "tetrad/train/timing/retime.h"

namespace tetrad::app {

void runAdviseMap(const AdviseMapFlags& flags) {
  AdviseMapFlags f = flags;
  if (f.exe.empty()) {
    f.exe = childProgram();
  } else {
    std::error_code ec;
    const auto status = std::filesystem::status(f.exe, ec);
    TETRAD_CHECK(!ec && std::filesystem::is_regular_file(status) &&
                     (status.permissions() & std::filesystem::perms::owner_exec) !=
                         std::filesystem::perms::none,
                 InvalidArgument, "--replay-with '{}': not an executable file", f.exe);
    f.exe = std::filesystem::canonical(f.exe).string();
  }
  TETRAD_CHECK(f.jobs >= 1, InvalidArgument, "--jobs {}: need at least 1", f.jobs);
  TETRAD_CHECK(f.noiseRatio >= 0 && std::isfinite(f.noiseRatio), InvalidArgument,
               "--noise-ratio must be a finite number >= 0, got {}", f.noiseRatio);
  // A bad --net-model is refused once, here, not as "not mapped" per method.
  if (!f.netModel.empty()) model::resolveNetModel(f.netModel);
  const experiment::MapAxis bandwidths =
      experiment::parseBandwidthAxis(f.bandwidths, "--map-bandwidth");
  const experiment::MapAxis latencies = experiment::parseLatencyAxis(f.latencies, "--map-latency");
  const std::vector<experiment::RunRecord> records = experiment::readRunFolders(f.results);
  std::vector<int> workerCounts;
  const std::vector<MethodRuns> groups = methodRunsOf(records, workerCounts);
  TETRAD_CHECK(!groups.empty(), InvalidArgument,
               "--map: '{}' holds no finished simulated run to map", f.results);
  std::string countsText;
  for (int w : workerCounts) countsText += (countsText.empty() ? "" : ", ") + std::to_string(w);
  std::printf(
      "# tetrad advise --map: %zu methods x worker counts of %s (%s workers) on %zu x %zu star "
      "networks\n",
      groups.size(), f.results.c_str(), countsText.c_str(), bandwidths.values.size(),
      latencies.values.size());
  std::vector<experiment::MapCell> cells;
  const bool severalCounts = workerCounts.size() > 1;
  for (int workers : workerCounts) {
    for (double latency : latencies.values) {
      for (double bandwidth : bandwidths.values)
        cells.push_back({bandwidth, latency, {}, severalCounts ? workers : 0});
    }
  }
  const model::CompressionErrorFunction error =
      recordedCompressionError(records, model::modelWorkload(groups.front().first().model));
  // The advisor's iterations: BSP's measured iterations to target (per
  // worker count, mean over its seeds) × the convergence theory's multiplier
  // (iteration_theory.h) at the noise ratio s, given or fitted to the
  // multipliers this sweep measured (noise_ratio_fit.h).
  const std::map<int, double> baselineIterations = baselineIterationsOf(groups);
  auto baselineOf = [&](int workers) {
    auto it = baselineIterations.find(workers);
    return it == baselineIterations.end() ? NAN : it->second;
  };
  const std::vector<model::MeasuredMultiplier> measured =
      measuredMultipliersOf(groups, baselineIterations);
  std::optional<model::NoiseRatioFit> fit;
  try {
    fit = model::fitNoiseRatio(measured, error);
  } catch (const InvalidArgument&) {
    if (f.fitNoiseRatio) throw;
  }
  const double noiseRatio = f.fitNoiseRatio ? fit->noiseRatio : f.noiseRatio;
  if (fit) {
    std::printf(
        "# noise ratio s fitted to the measured iterations of %d methods: s = %.4g (rms log "
        "error %.3f; at s = %g: %.3f)%s\n",
        fit->points, fit->noiseRatio, fit->rmsLogError, model::kDefaultNoiseRatio,
        fit->rmsLogErrorDefault,
        f.fitNoiseRatio ? ""
                        : fmt::format("; used only for comparison, s = {:g}", noiseRatio).c_str());
  }
  // The agreement is also counted at these (label, s), for comparison.
  std::vector<std::pair<std::string, double>> otherRatios;
  if (noiseRatio != model::kDefaultNoiseRatio)
    otherRatios.emplace_back("the default", model::kDefaultNoiseRatio);
  if (fit && !f.fitNoiseRatio && std::abs(std::log(fit->noiseRatio / noiseRatio)) > 1e-3)
    otherRatios.emplace_back("fitted to this sweep", fit->noiseRatio);
  // (cell, method) -> predicted iterations and time per iteration, per other s.
  using Predicted = std::map<std::pair<size_t, std::string>, std::pair<double, double>>;
  std::vector<Predicted> otherPredictions(otherRatios.size());
  // Predicted iterations to target; infinite where they exceed the
  // iterations the run had (the advisor then predicts it never reaches the
  // target, as a run of that length would not).
  auto predictedIterationsAt = [&](const experiment::RunRecord& run, int workers, double s) {
    try {
      const model::IterationEstimate estimate =
          model::predictIterations(model::canonicalMethod({run.sync, run.arch, run.compress}),
                                   run.workers, s, momentumOf(run), error);
      if (!estimate.covered) return double(NAN);
      const double its = baselineOf(workers) * estimate.multiplier;
      return run.iterations > 0 && its > double(run.iterations) ? double(INFINITY) : its;
    } catch (const InvalidArgument&) {
    }
    return double(NAN);
  };
  // First pass: each method's entries per cell, and the replays its
  // retimed cells need (run in the second, `jobs` at a time).
  struct Planned {
    std::string label, status;  // status: the line printed for the method
    bool retime = false;
    std::vector<std::pair<size_t, experiment::MapEntry>> entries;  // (cell, entry)
    size_t firstReplay = 0;           // retimed: replays [firstReplay, + entries × seeds)
    double evaluationInterval = NAN;  // iterations between evaluations (NaN: epoch ends only)
  };
  std::vector<Planned> planned;
  std::vector<MapReplay> replays;
  bool anyBaseline = false;
  for (const MethodRuns& group : groups) {
    const experiment::RunRecord& run = group.first();
    anyBaseline = anyBaseline || std::isfinite(baselineOf(group.workers));
    const train::TrainConfig config = train::configOfRun(run.folder);
    const std::string netModel = f.netModel.empty() ? config.netModel : f.netModel;
    const double predictedIterations = predictedIterationsAt(run, group.workers, noiseRatio);
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
        severalCounts ? fmt::format("{} ({} workers)", run.method, group.workers) : run.method;
    if (!p.retime && !run.sched.empty() && run.sched != "none") {
      p.status =
          fmt::format("not mapped: the cost model covers --sched none only, not {}", run.sched);
      planned.push_back(std::move(p));
      continue;
    }
    const std::string seedsText =
        group.seeds.size() > 1 ? fmt::format(", mean of {} seeds", group.seeds.size()) : "";
    p.status = !reached   ? fmt::format("reached the target with {} of {} seeds: never wins",
                                        reachedSeeds, group.seeds.size())
               : p.retime ? "retimed" + seedsText
                          : "cost model x measured iterations to target" + seedsText;
    p.firstReplay = replays.size();
    for (size_t c = 0; c < cells.size(); ++c) {
      const experiment::MapCell& cell = cells[c];
      if (severalCounts && cell.workers != group.workers) continue;
      const std::string spec = experiment::mapClusterSpec(cell.bandwidth, cell.latency);
      experiment::MapEntry entry{run.method, NAN, p.retime ? "retimed" : "cost model"};
      entry.iterationsToTarget = meanAndStd(iterations).first;
      entry.predictedTimePerIteration = costModelTimePerIteration(
          run, config, spec, netModel,
          std::isfinite(predictedIterations) ? predictedIterations : entry.iterationsToTarget);
      entry.predictedIterations = predictedIterations;
      entry.seeds = int(group.seeds.size());
      for (size_t k = 0; k < otherRatios.size(); ++k) {
        const double its = predictedIterationsAt(run, group.workers, otherRatios[k].second);
        otherPredictions[k][{c, run.method}] = {
            its, costModelTimePerIteration(run, config, spec, netModel,
                                           std::isfinite(its) ? its : entry.iterationsToTarget)};
      }
      if (p.retime) {
        for (const experiment::RunRecord& seed : group.seeds)
          replays.push_back({seed.folder, spec, f.netModel});
      } else if (reached) {
        // Cost model × measured iterations (mean over seeds), on the run's
        // network model unless --net-model says otherwise.
        entry.timePerIteration = entry.predictedTimePerIteration;
        std::vector<double> times;
        for (const experiment::RunRecord& seed : group.seeds)
          times.push_back(entry.timePerIteration * seed.iterationsToTarget);
        std::tie(entry.timeToTarget, entry.timeStd) = meanAndStd(times);
      }
      p.entries.emplace_back(c, entry);
    }
    planned.push_back(std::move(p));
  }
  // Second pass: the replays, then each retimed entry's mean over its seeds.
  const std::vector<MapReplayResult> replayed = replayCached(
      replays, f.jobs, f.exe, (std::filesystem::path(f.results) / ".map-replays").string(),
      (std::filesystem::path(f.results) / "map_replays.jsonl").string());
  for (Planned& p : planned) {
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
      cells[c].entries.push_back(entry);
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
  const experiment::MapFiles files = experiment::writeMap(f.results, cells);
  // The winners, one row per latency.
  std::printf("# winner per cell (rows: latency; columns: bandwidth)\n%-10s", "latency");
  for (double b : bandwidths.values) {
    std::printf(" %14s", fmt::format("{:.3g} Gb/s", b * 8 / 1e9).c_str());
  }
  std::printf("\n");
  size_t i = 0;
  for (int workers : workerCounts) {
    if (severalCounts) std::printf("# %d workers\n", workers);
    for (double latency : latencies.values) {
      std::printf("%-10s", formatSeconds(latency).c_str());
      for (size_t b = 0; b < bandwidths.values.size(); ++b, ++i) {
        const std::string winner = experiment::winnerOf(cells[i]);
        std::printf(" %14s", winner.empty() ? "-" : winner.c_str());
      }
      std::printf("\n");
    }
  }
  // The advisor (cost model × theory) against the map's winners.
  if (anyBaseline) {
    const experiment::MapAgreement agreement = experiment::countAgreement(cells);
    std::printf(
        "# advisor (cost model x BSP's iterations x theory multiplier, noise ratio %.4g%s) vs the "
        "map's fastest: agrees in %d of %d cells (the fastest, or within 10%% of its time); "
        "%d more within one evaluation step of the fastest (ties the runs cannot resolve)\n",
        noiseRatio, f.fitNoiseRatio ? ", fitted" : "", agreement.agreed, agreement.cells,
        agreement.tied);
    for (const std::string& line : agreement.disagreements) std::printf("#   %s\n", line.c_str());
    for (size_t k = 0; k < otherRatios.size(); ++k) {
      std::vector<experiment::MapCell> other = cells;
      for (size_t c = 0; c < other.size(); ++c) {
        for (experiment::MapEntry& e : other[c].entries) {
          std::tie(e.predictedIterations, e.predictedTimePerIteration) =
              otherPredictions[k].at({c, e.method});
        }
      }
      const experiment::MapAgreement a = experiment::countAgreement(other);
      std::printf("# advisor at noise ratio %.4g (%s): agrees in %d of %d cells; %d more ties\n",
                  otherRatios[k].second, otherRatios[k].first.c_str(), a.agreed, a.cells, a.tied);
    }
  } else {
    std::printf(
        "# advisor agreement: not counted (no finished BSP all-reduce run without compression that "
        "reached the target, whose iterations the theory multiplies)\n");
  }
  std::printf("map: %s\n", files.csv.c_str());
  for (const std::string& image : files.images) std::printf("     %s\n", image.c_str());
}

}  // namespace tetrad::app
