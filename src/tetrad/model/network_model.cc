// α, β of a cluster spec (network_model.h): star α = LAT, β = 1/BW; two levels
// α_l = LAT1, β_l = 1/BW1 inside a node, α = LAT1 + LAT2, β = 1/min(BW1, BW2) across.
#include "tetrad/model/network_model.h"

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"

namespace tetrad::model {

CostParams NetworkModel::costParams() const {
  CostParams params;
  params.alpha = alpha;
  params.beta = beta;
  params.gamma = 0;
  params.ranksPerNode = ranksPerNode;
  params.intraAlpha = twoLevel ? intraAlpha : alpha;
  params.intraBeta = twoLevel ? intraBeta : beta;
  params.latencyFactor = latencyFactor;
  params.bandwidthFactor = bandwidthFactor;
  params.tcpGamma = tcpGamma;
  return params;
}

double NetworkModel::latencyAt(double bytes) const {
  return alpha * latencyFactor.at(bytes);
}

double NetworkModel::secondsPerByteAt(double bytes, int flows) const {
  double perByte = beta;
  if (tcpGamma > 0 && flows > 0) perByte = std::max(beta, 2 * alpha / (tcpGamma * flows));
  return perByte / bandwidthFactor.at(bytes);
}

std::string NetworkModel::describe() const {
  std::string factors;
  if (!netModel.empty()) {
    factors = fmt::format("; network model {}", netModel);
    if (!latencyFactor.empty()) {
      factors += fmt::format(" (latency factor {}, bandwidth factor {})", latencyFactor.toString(),
                             bandwidthFactor.toString());
    }
  }
  if (!twoLevel) {
    return fmt::format("star, α = {}, 1/β = {}{}", formatSeconds(alpha), formatBandwidth(1 / beta),
                       factors);
  }
  return fmt::format(
      "two levels of {} ranks per node: inside α_l = {}, 1/β_l = {}; across α = {}, 1/β = {}{}",
      ranksPerNode, formatSeconds(intraAlpha), formatBandwidth(1 / intraBeta), formatSeconds(alpha),
      formatBandwidth(1 / beta), factors);
}

NetworkModel withNetModel(NetworkModel model, const std::string& netModel) {
  const NetModelChoice choice = resolveNetModel(netModel);
  model.netModel = choice.name;
  model.latencyFactor = choice.latencyFactor;
  model.bandwidthFactor = choice.bandwidthFactor;
  model.tcpGamma = choice.tcpGamma;
  return model;
}

NetworkModel networkModel(const std::string& cluster, int workers) {
  const ClusterNetwork network = clusterNetwork(cluster);
  TETRAD_CHECK(network.shape != ClusterShape::kOther, InvalidArgument,
               "cluster '{}': the cost models cover a star (sim:[Nx]BW,LAT) and two levels "
               "(sim:NxG:BW1,LAT1:BW2,LAT2), not fat-trees, tori or platform files",
               cluster);
  TETRAD_CHECK(workers >= 0, InvalidArgument, "--workers must be >= 1, got {}", workers);
  if (workers == 0) {
    TETRAD_CHECK(network.hosts > 0, InvalidArgument,
                 "cluster '{}' does not fix the number of hosts: give --workers N", cluster);
    workers = network.hosts;
  }
  TETRAD_CHECK(network.hosts == 0 || workers <= network.hosts, InvalidArgument,
               "cluster '{}' has {} hosts, fewer than the {} workers", cluster, network.hosts,
               workers);
  NetworkModel model;
  model.cluster = cluster;
  model.workers = workers;
  if (network.shape == ClusterShape::kStar) {
    model.alpha = network.latency;
    model.beta = 1 / network.bandwidth;
  } else {
    model.twoLevel = true;
    model.ranksPerNode = network.ranksPerNode;
    model.intraAlpha = network.intraLatency;
    model.intraBeta = 1 / network.intraBandwidth;
    model.alpha = network.intraLatency + network.latency;
    model.beta = 1 / std::min(network.bandwidth, network.intraBandwidth);
  }
  return model;
}

}  // namespace tetrad::model
