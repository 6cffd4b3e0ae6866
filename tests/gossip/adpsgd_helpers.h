// Pure AD-PSGD gossip (no gradient steps) through the exchange the trainer
// uses (arch/gossip/adpsgd_exchange.h), shared by the SimGrid test and the
// mpirun check: every rank starts from its own vector (sim_helpers.h) and
// calls pushPull() until the step counter says stop, pausing `pause`
// seconds of the engine's clock before each step (a straggler: more).
// Without gradient steps the averaging keeps Σ_i x_i (each pairwise average
// moves the two models by opposite amounts) and contracts the consensus
// distance.
#pragma once

#include <string>
#include <vector>

#include "sim_helpers.h"
#include "tetrad/arch/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/transport/tag_space.h"

namespace tetrad::testing {

struct PureGossipResult {
  std::vector<float> x;  // this rank's final vector
  ExchangeStats stats;
  int64_t steps = 0;  // this rank's pushPull calls
};

inline PureGossipResult runPureAdpsgd(Transport& world, const std::string& topology, size_t count,
                                      int64_t iterations, double pause, uint64_t seed = 1) {
  TagSpace tags;
  SyncPolicyPtr sync = makeSyncPolicy("asp");
  ExchangeContext context;
  context.world = &world;
  context.workers = &world;
  context.workerCount = world.size();
  context.tags = &tags;
  context.sync = sync.get();
  context.seed = seed;
  context.updateLimit = iterations * world.size();
  context.slots.push_back({"x", count, {}});
  context.buckets.push_back({0, count, {}, "b"});
  ExchangePtr exchange = makeExchange("gossip:" + topology, context);
  PureGossipResult result;
  result.x = initialVector(world.rank(), count);
  exchange->start(result.x);
  for (bool stop = false; !stop; ++result.steps) {
    world.sleepFor(pause);
    stop = exchange->pushPull({}, result.x).stop;
  }
  exchange->finish();
  result.stats = exchange->stats();
  return result;
}

}  // namespace tetrad::testing
