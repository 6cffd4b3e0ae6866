#include "tetrad/train/loop/schedule_setup.h"

#include <algorithm>
#include <array>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/core/error.h"

namespace tetrad::train {

void broadcastValues(Transport& world, std::span<double> values, Tag tag,
                     PayloadFreeTables* tables) {
  const bool relay = tables != nullptr && !world.carriesPayload();
  if (relay && world.rank() == 0) tables->broadcasts[tag].assign(values.begin(), values.end());
  broadcast(world, std::as_writable_bytes(values), {BroadcastAlgorithm::kBinomial, 0, tag});
  if (relay && world.rank() != 0) {
    const auto it = tables->broadcasts.find(tag);
    TETRAD_CHECK(it != tables->broadcasts.end() && it->second.size() == values.size(), Error,
                 "rank {}: set-up values of tag {} received before rank 0 left them", world.rank(),
                 tag);
    std::copy(it->second.begin(), it->second.end(), values.begin());
  }
}

std::vector<double> plannedBackwardSeconds(double batchSeconds, const std::vector<int>& slotStage,
                                           const std::vector<double>& stageFlops) {
  double total = 0;
  for (double f : stageFlops) total += f;
  std::vector<double> seconds(slotStage.size(), 0.0);
  std::vector<char> charged(stageFlops.size(), 0);
  // Ready order is reverse parameter order: a stage's backward time goes to
  // its first gradient in that order.
  for (size_t i = slotStage.size(); i-- > 0;) {
    const size_t stage = size_t(slotStage[i]);
    if (charged[stage] || total <= 0) continue;
    charged[stage] = 1;
    seconds[i] = batchSeconds * (2.0 / 3.0) * stageFlops[stage] / total;
  }
  return seconds;
}

MeasuredAlphaBeta measureAlphaBeta(Transport& world, Transport* workers, int workerCount, Tag tag,
                                   PayloadFreeTables* tables) {
  std::array<double, 2> fitted{0, 0};
  if (workers != nullptr && workerCount > 1) {
    const size_t small = 64, large = size_t(1) << 20;  // floats: 256 B and 4 MiB
    std::vector<float> data(large, 1.0f);
    auto timeOf = [&](size_t count) {
      std::vector<double> times;
      for (int rep = 0; rep < 3; ++rep) {
        const double start = workers->now();
        AllreduceOptions options;
        options.tag = tag;
        allreduce(*workers, std::span(data).first(count), options);
        times.push_back(workers->now() - start);
      }
      std::sort(times.begin(), times.end());
      return times[1];
    };
    const double tSmall = timeOf(small), tLarge = timeOf(large);
    const double p = workerCount;
    // Ring: 2(p−1)α + 2(p−1)/p·bβ.
    fitted[0] = tSmall / (2 * (p - 1));
    fitted[1] = std::max(0.0, (tLarge - tSmall) / (2 * (p - 1) / p * double(large - small) * 4));
  }
  broadcastValues(world, fitted, tag + kCollectiveTagSpan, tables);
  return {fitted[0], fitted[1]};
}

sched::CommCost messageCost(const ResolvedConfig& config, Transport& world, Transport* workers,
                            int workerCount, Tag tag, PayloadFreeTables* tables) {
  // Measured rather than read from the spec: SimGrid's network model scales
  // latencies and bandwidths (LV08: ×13.01 and ×0.97), routes cross several
  // links, and under MPI there is no spec at all.
  const MeasuredAlphaBeta link = measureAlphaBeta(world, workers, workerCount, tag, tables);
  const std::string source = "calibrated";
  const int p = workerCount;
  const ArchShape& arch = config.arch;
  if (arch.serversHoldWeights) {
    const double shards = arch.shards > 0 ? arch.shards : p;
    const double alpha = link.alpha, beta = link.beta;
    return sched::CommCost(
        fmt::format("ps push+pull, {} workers, {} shards ({})", p, shards, source),
        [=](uint64_t bytes) {
          return 2 * alpha + 2 * (double(p) / shards) * double(bytes) * beta;
        });
  }
  // The arch's parsed algorithm; the engine's own (native) priced as a ring.
  const AllreduceAlgorithm algorithm =
      arch.allreduce == AllreduceAlgorithm::kNative ? AllreduceAlgorithm::kRing : arch.allreduce;
  CostParams params;
  params.alpha = link.alpha;
  params.beta = link.beta;
  return sched::allreduceCommCost(algorithm, p, params);
}

}  // namespace tetrad::train
