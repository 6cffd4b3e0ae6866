// `tetrad advise --results DIR --map`: which method of a finished sweep
// reaches the target first on which network (experiment/method_map.h).
//
// The sweep's first cluster (its worker count, its runs) is the source:
// for each method, its first finished run there (lowest seed). In every
// cell of the bandwidth × latency grid (star networks "sim:BW,LAT"):
//   synchronous methods (bsp, local:H, post-local, gossip D-PSGD/CHOCO):
//     retimed exactly (train/retime.h): the run's own iterations on the
//     cell's network; its time to target there;
//   asynchronous methods (ssp, asp, AD-PSGD), and runs timing-only cannot
//     replay (overlapping schedules): the cost model's time per iteration
//     on the cell's network × the run's measured iterations to target,
//     marked "cost model".
// A run that never reached the target is mapped as never reaching it.
#include "advise_map.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "tetrad/compress/compressor.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/method_map.h"
#include "tetrad/experiment/run_groups.h"
#include "tetrad/experiment/run_record.h"
#include "tetrad/model/codec_cost.h"
#include "tetrad/model/compression_error.h"
#include "tetrad/model/iteration_theory.h"
#include "tetrad/model/method_cost.h"
#include "tetrad/model/network_model.h"
#include "tetrad/model/workload.h"
#include "tetrad/train/retime.h"

namespace tetrad::app {
namespace {

bool synchronous(const experiment::RunRecord& run) {
  return !(run.sync == "asp" || run.sync.starts_with("ssp"));
}

// The run's compute model for the cost model: fixed:D or flops:G.
model::ComputeTime computeOfRun(const train::TrainConfig& config, const model::Workload& w) {
  const std::string& spec = config.compute;
  if (spec.starts_with("fixed:")) {
    return model::computeTime(w, config.batchSize, parseDuration(spec.substr(6)), -1);
  }
  if (spec.starts_with("flops:")) {
    return model::computeTime(w, config.batchSize, -1, parseNumber(spec.substr(6), "flops"));
  }
  throw InvalidArgument(fmt::format(
      "--map: run {} charged measured compute times (--compute {}): the cost model needs fixed: "
      "or flops:",
      config.out, spec));
}

// The cost model's time per iteration of `run`'s method on `cluster`; NaN
// where the model refuses the method (e.g. measured compute).
double costModelTimePerIteration(const experiment::RunRecord& run, const train::TrainConfig& config,
                                 const std::string& cluster, const std::string& netModel) {
  try {
    model::ModelContext context;
    context.workload = model::modelWorkload(run.model);
    context.network = model::withNetModel(model::networkModel(cluster, run.workers), netModel);
    context.compute = computeOfRun(config, context.workload);
    context.codec = [](const Compressor& c, const model::Workload& w) {
      return model::nominalCodec(c, w);
    };
    return model::predictMethod(model::canonicalMethod({run.sync, run.arch, run.compress}), context)
        .seconds;
  } catch (const InvalidArgument&) {
    return NAN;
  } catch (const Unsupported&) {
    return NAN;
  }
}

}  // namespace

void runAdviseMap(const AdviseMapFlags& f) {
  const experiment::MapAxis bandwidths =
      experiment::parseBandwidthAxis(f.bandwidths, "--map-bandwidth");
  const experiment::MapAxis latencies = experiment::parseLatencyAxis(f.latencies, "--map-latency");
  const std::vector<experiment::RunRecord> records = experiment::readRunFolders(f.results);
  // The first cluster's first finished run of each method, in sweep order.
  std::string cluster;
  std::vector<experiment::RunRecord> runs;
  for (const experiment::RunRecord& r : records) {
    if (r.status != "ok" || r.engine == "mpi") continue;
    if (cluster.empty()) cluster = r.cluster;
    if (r.cluster != cluster) continue;
    bool seen = false;
    for (const experiment::RunRecord& kept : runs) seen = seen || kept.method == r.method;
    if (!seen) runs.push_back(r);
  }
  TETRAD_CHECK(!runs.empty(), InvalidArgument, "--map: '{}' holds no finished simulated run to map",
               f.results);
  std::printf(
      "# tetrad advise --map: %zu methods of %s (cluster %s, %d workers) on %zu x %zu "
      "star networks\n",
      runs.size(), f.results.c_str(), cluster.c_str(), runs.front().workers,
      bandwidths.values.size(), latencies.values.size());
  std::vector<experiment::MapCell> cells;
  for (double latency : latencies.values) {
    for (double bandwidth : bandwidths.values) cells.push_back({bandwidth, latency, {}});
  }
  // The advisor's iterations: BSP's measured iterations to target × the
  // convergence theory's multiplier (iteration_theory.h).
  double baselineIterations = NAN;
  for (const experiment::RunRecord& r : runs) {
    if (experiment::isBaselinePoint(r.sync, r.arch, r.compress, r.sched) &&
        std::isfinite(r.iterationsToTarget) && std::isnan(baselineIterations))
      baselineIterations = r.iterationsToTarget;
  }
  auto errors = std::make_shared<std::map<std::string, double>>();
  const model::Workload workload = model::modelWorkload(runs.front().model);
  const model::CompressionErrorFunction error = [errors, workload](const Compressor& c) {
    auto it = errors->find(c.spec());
    if (it != errors->end()) return it->second;
    return (*errors)[c.spec()] = model::measureWorkloadError(c, workload).ratio;
  };
  for (const experiment::RunRecord& run : runs) {
    const train::TrainConfig config = train::configOfRun(run.folder);
    const std::string netModel = f.netModel.empty() ? config.netModel : f.netModel;
    double predictedIterations = NAN;
    try {
      const model::IterationEstimate estimate =
          model::predictIterations(model::canonicalMethod({run.sync, run.arch, run.compress}),
                                   run.workers, model::kDefaultNoiseRatio, error);
      if (estimate.covered) predictedIterations = baselineIterations * estimate.multiplier;
    } catch (const InvalidArgument&) {
    }
    const bool reached = std::isfinite(run.timeToTarget);
    bool retime = synchronous(run) && reached;
    std::string skip;
    if (!retime && !run.sched.empty() && run.sched != "none")
      skip = fmt::format("not mapped: the cost model covers --sched none only, not {}", run.sched);
    if (!skip.empty()) {
      std::printf("# %-24s %s\n", run.method.c_str(), skip.c_str());
      continue;
    }
    std::vector<experiment::MapEntry> entries;
    for (const experiment::MapCell& cell : cells) {
      const std::string spec = experiment::mapClusterSpec(cell.bandwidth, cell.latency);
      experiment::MapEntry entry{run.method, NAN, retime ? "retimed" : "cost model"};
      entry.iterationsToTarget = run.iterationsToTarget;
      entry.predictedTimePerIteration = costModelTimePerIteration(run, config, spec, netModel);
      entry.predictedIterations = predictedIterations;
      if (retime) {
        try {
          const train::RetimeResult r = train::retimeRun({run.folder, spec, f.netModel, "", ""});
          entry.timeToTarget = r.retimed.timeToTarget >= 0 ? r.retimed.timeToTarget : NAN;
          entry.timePerIteration = r.retimed.timePerIteration;
        } catch (const Unsupported& e) {
          // Timing-only cannot replay it (an overlapping schedule), and the
          // cost model has no overlap: not mapped, rather than mapped wrong.
          skip = fmt::format("not mapped: {}; the cost model covers --sched none only", e.what());
          break;
        }
      }
      if (!retime && reached) {
        // Cost model × measured iterations, on the run's network model
        // unless --net-model says otherwise (as the retimed runs).
        entry.timePerIteration = entry.predictedTimePerIteration;
        entry.timeToTarget = entry.timePerIteration * run.iterationsToTarget;
      }
      entries.push_back(entry);
    }
    if (!skip.empty()) {
      std::printf("# %-24s %s\n", run.method.c_str(), skip.c_str());
      continue;
    }
    for (size_t c = 0; c < cells.size(); ++c) cells[c].entries.push_back(entries[c]);
    std::printf("# %-24s %s\n", run.method.c_str(),
                !reached ? "never reached the target: never wins"
                : retime ? "retimed"
                         : "cost model x measured iterations to target");
    std::fflush(stdout);
  }
  const experiment::MapFiles files = experiment::writeMap(f.results, cells);
  // The winners, one row per latency.
  std::printf("# winner per cell (rows: latency; columns: bandwidth)\n%-10s", "latency");
  for (double b : bandwidths.values) {
    std::printf(" %14s", fmt::format("{:.3g} Gb/s", b * 8 / 1e9).c_str());
  }
  std::printf("\n");
  size_t i = 0;
  for (double latency : latencies.values) {
    std::printf("%-10s", formatSeconds(latency).c_str());
    for (size_t b = 0; b < bandwidths.values.size(); ++b, ++i) {
      const std::string winner = experiment::winnerOf(cells[i]);
      std::printf(" %14s", winner.empty() ? "-" : winner.c_str());
    }
    std::printf("\n");
  }
  // The advisor (cost model × theory) against the map's winners.
  if (std::isfinite(baselineIterations)) {
    const experiment::MapAgreement agreement = experiment::countAgreement(cells);
    std::printf(
        "# advisor (cost model x BSP's iterations x theory multiplier, noise ratio %g) vs the "
        "map's fastest: agrees in %d of %d cells (the fastest, or within 10%% of its time)\n",
        model::kDefaultNoiseRatio, agreement.agreed, agreement.cells);
    for (const std::string& line : agreement.disagreements) std::printf("#   %s\n", line.c_str());
  } else {
    std::printf(
        "# advisor agreement: not counted (no finished BSP all-reduce run without compression that "
        "reached the target, whose iterations the theory multiplies)\n");
  }
  std::printf("map: %s\n", files.csv.c_str());
  for (const std::string& image : files.images) std::printf("     %s\n", image.c_str());
}

}  // namespace tetrad::app
