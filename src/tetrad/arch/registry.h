// Architecture registry: spec string -> Exchange (arch/exchange.h), in the
// table shape of core/registry.h.
//
//   allreduce[:ALGO]          all-reduce among workers (ring, rd, rabenseifner,
//                             tree, hierarchical, native; default ring)
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
#include "tetrad/core/registry.h"

namespace tetrad {

struct ArchShape {
  std::string family;     // "allreduce", "ps"
  std::string canonical;  // e.g. "allreduce:ring", "ps:2:colocated"
  int serverRanks = 0;    // extra ranks after the workers (dedicated servers)
  int shards = 0;         // parameter servers: K (0: as many as workers)
  bool colocated = false;
  std::string topology;  // gossip: "ring", "torus:4x4", ...
  bool holdsWeights() const { return family == "ps"; }
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
