// The run's allreduce:auto selector (allreduce_choice.h).
#include "tetrad/train/loop/allreduce_choice.h"

#include <fmt/format.h>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/model/netprofile/network_profile.h"
#include "tetrad/model/network_model.h"
#include "tetrad/train/loop/schedule_setup.h"

namespace tetrad::train {
namespace {

bool usesAuto(const ResolvedConfig& config) {
  return config.arch.averagesByCollective && config.arch.allreduce == AllreduceAlgorithm::kAuto;
}

// A simulated star or two-level cluster: its spec's links with the run's
// network model; nothing for other platforms.
std::unique_ptr<AllreduceSelector> fromSpec(const ResolvedConfig& config, int workerCount) {
  const ClusterNetwork network = clusterNetwork(config.given.cluster);
  if (network.shape == ClusterShape::kOther) return nullptr;
  model::NetworkModel net = model::networkModel(config.given.cluster, workerCount);
  const std::string& name = config.netModel;
  const bool named = model::isNetModelName(name);
  if (named) net = model::withNetModel(net, name);
  return std::make_unique<AllreduceSelector>(
      workerCount, net.costParams(),
      fmt::format("cluster {}, {}", config.given.cluster, named ? name : "plain α–β"));
}

// MPI with a calibrated profile of the real network.
std::unique_ptr<AllreduceSelector> fromProfile(const std::string& path, int workerCount) {
  const model::NetworkProfile profile = model::loadNetworkProfile(path);
  TETRAD_CHECK(profile.ranks == workerCount || profile.ranks == 0, InvalidArgument,
               "allreduce:auto under MPI: profile {} was calibrated on {} ranks, this run has {} "
               "workers (calibrate again with `tetrad calibrate` on {} ranks)",
               path, profile.ranks, workerCount, workerCount);
  CostParams params;
  params.alpha = profile.latency;
  params.beta = profile.bandwidth > 0 ? 1 / profile.bandwidth : 0;
  params.latencyFactor = profile.latencyFactor();
  params.bandwidthFactor = profile.bandwidthFactor();
  return std::make_unique<AllreduceSelector>(workerCount, params, "profile " + path);
}

}  // namespace

std::unique_ptr<AllreduceSelector> makeRunAllreduceSelector(const ResolvedConfig& config,
                                                            Transport& world, Transport* workers,
                                                            int workerCount, TagSpace& tags,
                                                            PayloadFreeTables* tables) {
  if (!usesAuto(config)) return nullptr;
  const std::string& profileFlag = config.given.netModel;
  if (config.mpi && profileFlag.starts_with("profile:")) {
    return fromProfile(profileFlag.substr(8), workerCount);
  }
  if (!config.mpi) {
    if (std::unique_ptr<AllreduceSelector> selector = fromSpec(config, workerCount)) {
      return selector;
    }
  }
  const Tag tag = tags.reserve(2 * kCollectiveTagSpan, "allreduce:auto's network measurement");
  const MeasuredAlphaBeta link = measureAlphaBeta(world, workers, workerCount, tag, tables);
  CostParams params;
  params.alpha = link.alpha;
  params.beta = link.beta;
  return std::make_unique<AllreduceSelector>(
      workerCount, params,
      fmt::format("measured α = {}, 1/β = {}", formatSeconds(link.alpha),
                  link.beta > 0 ? formatBandwidth(1 / link.beta) : std::string("∞")));
}

}  // namespace tetrad::train
