// Architecture registry: spec string -> Exchange (arch/exchange.h), in the
// table shape of core/registry.h.
//
//   allreduce[:ALGO]          all-reduce among workers (auto, ring, rd,
//                             rabenseifner, tree, hierarchical, native;
//                             default auto: per message, the algorithm the
//                             run's network predicts fastest, allreduce_auto.h)
//   ps[:K][:colocated]        K sharded parameter servers (default 1);
//                             dedicated ranks W..W+K-1, or colocated: a server
//                             task inside each of the first K workers
//                             (ps:colocated: K = W)
//   gossip:TOPO               decentralized mixing with the neighbours of a
//                             topology (arch/gossip/topology_spec.h);
//                             D-PSGD, or CHOCO-SGD with --gossip choco:GAMMA;
//                             AD-PSGD under --sync asp (adpsgd_exchange.h)
//
// describeArch() tells, before anything runs, how many extra ranks the world
// needs; checkCombination() applies the compatibility rules of docs/sync.md
// (e.g. ssp/asp need servers) and throws InvalidArgument naming the rule.
//
// Thread-safe (immutable tables).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/arch/exchange.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/core/registry.h"

namespace tetrad {

// What an architecture is. The worker loop, the configuration checks and
// the cost models ask its traits, never its family name, so a new
// architecture is its own folder plus one table line in registry.cc that
// sets them (docs/architecture.md, "Traits, not names").
struct ArchShape {
  std::string family;     // "allreduce", "ps", "gossip": for messages and tables only
  std::string canonical;  // e.g. "allreduce:ring", "ps:2:colocated"
  int serverRanks = 0;    // extra ranks after the workers (dedicated servers)
  int shards = 0;         // parameter servers: K (0: as many as workers)
  bool colocated = false;
  std::string topology;  // gossip: "ring", "torus:4x4", ...
  // --- Traits ---
  // Servers own the weights: workers push updates and pull weights, and
  // the servers' packets carry values (ps).
  bool serversHoldWeights = false;
  // The exchange splits the model only at tensor boundaries, so units that
  // cut a tensor into chunks cannot be exchanged (ps: whole-tensor keys).
  bool partitionsWholeTensors = false;
  // Workers average each bucket with a collective of algorithm `allreduce`
  // (all-reduce).
  bool averagesByCollective = false;
  AllreduceAlgorithm allreduce = AllreduceAlgorithm::kRing;
  // Workers mix whole models with their neighbours after the step, so the
  // models differ between workers (gossip).
  bool mixesModels = false;
  bool holdsWeights() const { return serversHoldWeights; }
};

// Parses and validates `spec` (no transport needed).
ArchShape describeArch(std::string_view spec);

// Throws InvalidArgument when `sync` cannot run on `arch` with compressor
// `compress` (and the gossip mode "dpsgd" or "choco:GAMMA"), naming the rule
// (e.g. ssp on gossip, a compressor or CHOCO with AD-PSGD).
void checkCombination(const ArchShape& arch, const SyncPolicy& sync, const Compressor& compress,
                      const Compressor& pullCompress, const std::string& gossip = "dpsgd");

// Builds this rank's Exchange. context.world/workers/tags must be set.
ExchangePtr makeExchange(std::string_view spec, const ExchangeContext& context);

std::vector<PolicyInfo> registeredArchitectures();
std::string knownArchitectures();

}  // namespace tetrad
