// The architecture registry (see registry.h): one table line per family.
#include "tetrad/arch/registry.h"

#include <fmt/format.h>

#include "tetrad/arch/allreduce/allreduce_exchange.h"
#include "tetrad/arch/gossip/adpsgd_exchange.h"
#include "tetrad/arch/gossip/gossip_exchange.h"
#include "tetrad/arch/ps/ps_exchange.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using Factory = ExchangePtr (*)(const ArchShape&, const ExchangeContext&);
using Entry = RegistryEntry<Factory>;

ExchangePtr makeAllreduce(const ArchShape& shape, const ExchangeContext& context) {
  return makeAllreduceExchange(parseAllreduceAlgorithm(shape.canonical.substr(10)), context);
}

ExchangePtr makePs(const ArchShape& shape, const ExchangeContext& context) {
  const int shards = shape.shards > 0 ? shape.shards : context.workerCount;
  return makePsExchange(shards, shape.colocated, context);
}

ExchangePtr makeGossip(const ArchShape& shape, const ExchangeContext& context) {
  if (context.sync->mode() == SyncMode::kPushPull) {
    return makeAdpsgdExchange(shape.topology, context);  // asp: AD-PSGD
  }
  return makeGossipExchange(shape.topology, context);
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {{"allreduce", "allreduce:auto",
        "all-reduce among workers: auto (per message, the fastest predicted on the run's "
        "network; default), ring, rd, rabenseifner, tree, hierarchical, native"},
       makeAllreduce},
      {{"ps", "ps:2", "K sharded parameter servers, dedicated ranks [:colocated in workers]"},
       makePs},
      {{"gossip", "gossip:ring",
        "decentralized: mix models with the neighbours of ring, torus:RxC, exp, exp:one-peer, "
        "complete, random:D, file:PATH (D-PSGD, CHOCO-SGD; AD-PSGD under --sync asp)"},
       makeGossip},
  };
  return entries;
}

ArchShape parseAllreduce(const SpecParams& params) {
  params.expectParamCount(0, 1);
  ArchShape shape;
  shape.family = "allreduce";
  const AllreduceAlgorithm algorithm =
      params.params.empty() ? AllreduceAlgorithm::kAuto : parseAllreduceAlgorithm(params.params[0]);
  shape.canonical = "allreduce:" + toString(algorithm);
  shape.averagesByCollective = true;
  shape.allreduce = algorithm;
  return shape;
}

ArchShape parsePs(const SpecParams& params) {
  params.expectParamCount(0, 2);
  ArchShape shape;
  shape.family = "ps";
  shape.serversHoldWeights = true;
  shape.partitionsWholeTensors = true;
  size_t next = 0;
  if (next < params.params.size() && params.params[next] != "colocated") {
    shape.shards = int(params.integer(next, "shard count K", 1, 4096));
    ++next;
  }
  if (next < params.params.size()) {
    if (params.params[next] != "colocated") {
      params.fail(
          fmt::format("unknown parameter '{}' (use ps[:K][:colocated])", params.params[next]));
    }
    shape.colocated = true;
    ++next;
  }
  if (next != params.params.size()) params.fail("use ps[:K][:colocated]");
  if (!shape.colocated && shape.shards == 0) shape.shards = 1;
  shape.serverRanks = shape.colocated ? 0 : shape.shards;
  shape.canonical = shape.shards > 0 ? fmt::format("ps:{}", shape.shards) : std::string("ps");
  if (shape.colocated) shape.canonical += ":colocated";
  return shape;
}

ArchShape parseGossip(const SpecParams& params) {
  if (params.params.empty()) params.fail("name the topology, e.g. gossip:ring or gossip:torus:4x4");
  ArchShape shape;
  shape.family = "gossip";
  shape.mixesModels = true;
  for (const std::string& part : params.params) {
    shape.topology += (shape.topology.empty() ? "" : ":") + part;
  }
  shape.canonical = "gossip:" + shape.topology;
  return shape;
}

}  // namespace

ArchShape describeArch(std::string_view spec) {
  SpecParams params = parseSpec(spec, "--arch");
  lookupEntry(table(), params);  // unknown names: "known: ..."
  if (params.name == "ps") return parsePs(params);
  if (params.name == "gossip") return parseGossip(params);
  return parseAllreduce(params);
}

void checkCombination(const ArchShape& arch, const SyncPolicy& sync, const Compressor& compress,
                      const Compressor& pullCompress, const std::string& gossip) {
  if (arch.family == "gossip") {
    TETRAD_CHECK(sync.mode() == SyncMode::kCollective || sync.stalenessBound() < 0, InvalidArgument,
                 "--sync {} bounds staleness through servers; gossip has none (rule: ssp runs on "
                 "ps; asp on gossip is AD-PSGD)",
                 sync.spec());
    const double gamma = parseGossipMode(gossip);
    if (sync.mode() == SyncMode::kPushPull) {  // asp: AD-PSGD
      TETRAD_CHECK(gamma == 0, InvalidArgument,
                   "--gossip {} is CHOCO-SGD, a synchronous step (--sync bsp or local:H); AD-PSGD "
                   "(--sync asp) averages full models pairwise (rule: AD-PSGD takes no --gossip)",
                   gossip);
      TETRAD_CHECK(compress.isIdentity(), InvalidArgument,
                   "--compress {} with AD-PSGD: it averages full models pairwise, only none is "
                   "accepted (rule: compressed gossip is CHOCO, --sync bsp --gossip choco:GAMMA)",
                   compress.spec());
    }
    TETRAD_CHECK(gamma > 0 || compress.isIdentity(), InvalidArgument,
                 "--compress {} on plain D-PSGD does not converge (neighbours average lossy "
                 "copies): use --gossip choco:GAMMA with it (rule: compressed gossip is CHOCO)",
                 compress.spec());
    TETRAD_CHECK(compress.aggregation() != Aggregation::kCustom, InvalidArgument,
                 "--compress {} aggregates with its own all-reduce protocol; CHOCO sends one "
                 "packet to each neighbour: use another compressor",
                 compress.spec());
  } else {
    TETRAD_CHECK(gossip == "dpsgd", InvalidArgument,
                 "--gossip {} applies to --arch gossip:TOPO only (the run uses {})", gossip,
                 arch.canonical);
  }
  if (sync.mode() == SyncMode::kPushPull && arch.family != "gossip") {
    TETRAD_CHECK(arch.holdsWeights(), InvalidArgument,
                 "--sync {} needs servers that hold the weights: use --arch ps[:K][:colocated] "
                 "(got --arch {}; rule: ssp and asp run on ps)",
                 sync.spec(), arch.canonical);
  }
  if (arch.family == "ps") {
    TETRAD_CHECK(compress.aggregation() != Aggregation::kCustom, InvalidArgument,
                 "--compress {} aggregates with its own all-reduce protocol (majority vote, "
                 "gTop-k merge or PowerSGD's two all-reduces); a parameter server decodes and "
                 "sums packets: use --arch allreduce:ALGO or another compressor",
                 compress.spec());
    TETRAD_CHECK(pullCompress.aggregation() != Aggregation::kCustom, InvalidArgument,
                 "--ps-pull-compress {} has its own all-reduce protocol; a server reply is one "
                 "packet: use another compressor",
                 pullCompress.spec());
  } else {
    TETRAD_CHECK(pullCompress.isIdentity(), InvalidArgument,
                 "--ps-pull-compress {} applies to --arch ps only (the run uses {})",
                 pullCompress.spec(), arch.canonical);
  }
}

ExchangePtr makeExchange(std::string_view spec, const ExchangeContext& context) {
  TETRAD_CHECK(context.world && context.workers && context.tags && context.sync, InvalidArgument,
               "makeExchange({}): incomplete context", spec);
  const ArchShape shape = describeArch(spec);
  for (const Entry& entry : table()) {
    if (entry.info.name == shape.family) return entry.make(shape, context);
  }
  TETRAD_FAIL(InvalidArgument, "--arch {}: no factory", spec);
}

std::vector<PolicyInfo> registeredArchitectures() {
  return policyInfos(table());
}

std::string knownArchitectures() {
  return knownSpecs(table());
}

}  // namespace tetrad
