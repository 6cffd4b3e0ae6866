// `tetrad topo`: properties and α–β cost of gossip topologies, without
// running anything.
//
//   tetrad topo SPEC [SPEC...] --workers N [--params N | --bytes B]
//               [--cluster sim:BW,LAT] [--seed S]
//
// For each topology spec (arch/gossip/topology_spec.h: ring, torus:RxC, exp,
// exp:one-peer, complete, random:D, file:PATH) on N workers, one row: nodes,
// degree (min/max over ranks and steps), period (1 unless time-varying), the
// spectral gap 1 - |λ₂| and the contraction |λ₂| (per step over a period for
// time-varying topologies; arch/gossip/spectral.h; marked '~' when power
// iteration estimated it, above 256 ranks), the bytes the busiest worker
// sends per gossip step (d_max × packet) and the α–β time of one step on the
// star `--cluster` (arch/gossip/gossip_cost.h): all d sends at once,
// α + d_max·P·β, and the serial bound d_max·(α + P·β).
// The packet is the float32 model of --params parameters (default 1M:
// 4 MB), or --bytes B bytes. Counts take K, M, G (powers of 1000).
//
// Output on stdout; bad specs or flags throw InvalidArgument (exit 2) with
// one line, e.g. "invalid topology 'torus:3x3': 3x3 = 9 ranks, but the
// world has 8 workers".
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "tetrad/arch/gossip/gossip_cost.h"
#include "tetrad/arch/gossip/spectral.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/core/error.h"
#include "tetrad/core/parameter_count.h"
#include "tetrad/core/units.h"
#include "tetrad/transport/sim/cluster_spec.h"

namespace tetrad::app {
namespace {

struct TopoFlags {
  std::vector<std::string> specs;
  int workers = 0;
  std::string params;
  std::string bytes;
  std::string cluster = "sim:10Gbps,25us";
  uint64_t seed = 1;
};

void runTopo(const TopoFlags& flags) {
  TETRAD_CHECK(flags.workers >= 1, InvalidArgument, "--workers must be >= 1, got {}",
               flags.workers);
  const sim::ClusterSpec cluster = sim::parseClusterSpec(flags.cluster);
  TETRAD_CHECK(cluster.topology == sim::Topology::kStar, InvalidArgument,
               "--cluster '{}': tetrad topo models a star, sim:[Nx]BW,LAT", flags.cluster);
  TETRAD_CHECK(cluster.hosts == 0 || cluster.hosts == flags.workers, InvalidArgument,
               "--cluster '{}' has {} hosts, --workers is {}", flags.cluster, cluster.hosts,
               flags.workers);
  const double alpha = cluster.link.latency;
  const double beta = 1.0 / cluster.link.bandwidth;
  double packet = 0;
  std::string packetText;
  if (!flags.bytes.empty()) {
    packet = static_cast<double>(parseBytes(flags.bytes));
    packetText = fmt::format("packet {} (--bytes)", formatBytes(packet));
  } else {
    const uint64_t params = parseParameterCount(flags.params.empty() ? "1M" : flags.params);
    packet = 4.0 * static_cast<double>(params);
    packetText = fmt::format("packet {} ({} float32 parameters)", formatBytes(packet), params);
  }
  std::vector<Topology> topologies;  // parse all first: one bad spec prints nothing
  for (const std::string& spec : flags.specs) {
    topologies.push_back(parseTopology(spec, flags.workers, flags.seed));
  }
  std::printf("# tetrad topo: %d workers; %s; %s: alpha %s, bandwidth %s\n", flags.workers,
              packetText.c_str(), flags.cluster.c_str(), formatSeconds(alpha).c_str(),
              formatBandwidth(cluster.link.bandwidth).c_str());
  std::printf(
      "# step-time = alpha + dmax*P*beta (every send at once on a full-duplex star link); "
      "serial = dmax*(alpha + P*beta); '~' = power-iteration estimate\n");
  std::printf("%-22s %6s %9s %6s %13s %12s %17s %11s %11s\n", "topology", "nodes", "degree",
              "period", "spectral-gap", "contraction", "bytes/worker/step", "step-time", "serial");
  for (const Topology& topology : topologies) {
    const SpectralInfo spectral = spectralGap(topology);
    const GossipCost cost = gossipStepCost(topology, packet, alpha, beta);
    const std::string degree = fmt::format("{}/{}", topology.minDegree(), topology.maxDegree());
    const char* mark = spectral.exact ? "" : "~";
    std::printf("%-22s %6d %9s %6d %13s %12s %17s %11s %11s\n", topology.spec().c_str(),
                topology.size(), degree.c_str(), topology.period(),
                fmt::format("{}{:.6f}", mark, spectral.gap).c_str(),
                fmt::format("{}{:.6f}", mark, spectral.contraction).c_str(),
                formatBytes(cost.bytesPerWorker).c_str(), formatSeconds(cost.seconds).c_str(),
                formatSeconds(cost.serialSeconds).c_str());
  }
  std::fflush(stdout);
}

CommandRegistration registration([](CommandGroups& groups) {
  auto flags = std::make_shared<TopoFlags>();
  CLI::App* cmd = groups.root->add_subcommand(
      "topo", "Gossip topologies: degree, spectral gap, bytes and alpha-beta time per step");
  cmd->add_option("specs", flags->specs, "topologies: " + knownTopologies())->required();
  cmd->add_option("--workers", flags->workers, "number of workers (ranks)")->required();
  auto* params = cmd->add_option("--params", flags->params,
                                 "model parameters (float32), e.g. 25M (default 1M)");
  auto* bytes = cmd->add_option("--bytes", flags->bytes, "packet bytes per message, e.g. 4MB");
  params->excludes(bytes);
  cmd->add_option("--cluster", flags->cluster, "star network sim:BW,LAT for the alpha-beta time")
      ->capture_default_str();
  cmd->add_option("--seed", flags->seed, "seed of random:D graphs")->capture_default_str();
  cmd->callback([flags] { runTopo(*flags); });
});

}  // namespace
}  // namespace tetrad::app
