// makePsLayout (ps_layout.h): what the workers and shards of one
// parameter-server run agree on, built the same way on every rank.
#include "tetrad/arch/ps/ps_layout.h"

#include "tetrad/collectives/collective_options.h"
#include "tetrad/core/error.h"
#include "tetrad/sync/sync_policy.h"

namespace tetrad::ps {

PsLayout makePsLayout(int shards, bool colocated, const ExchangeContext& context,
                      const std::string& spec) {
  PsLayout layout;
  layout.workers = context.workerCount;
  layout.shards = shards;
  layout.colocated = colocated;
  layout.plan = planPartitions(context.slots, context.buckets, context.partitionBytes, shards);
  layout.compress = context.compress;
  layout.pullCompress = context.pullCompress;
  const bool pushPull = context.sync->mode() == SyncMode::kPushPull;
  layout.mode = pushPull ? ShardMode::kWeights : ShardMode::kSum;
  layout.stalenessBound = context.sync->stalenessBound();
  layout.updateLimit = context.updateLimit;
  // The order of these reservations is part of the layout: every rank makes them alike.
  layout.requestTag = context.tags->reserve(1, "parameter server requests");
  layout.replyTag = context.tags->reserve(1, "parameter server replies");
  layout.barrierTag = context.tags->reserve(kCollectiveTagSpan, "parameter server start");
  layout.checkpointTag =
      context.tags->reserve(2 * kCollectiveTagSpan, "parameter server checkpoints");
  const int worldSize = context.world->size();
  const int needed = layout.workers + (colocated ? 0 : shards);
  TETRAD_CHECK(worldSize == needed, InvalidArgument,
               "--arch {}: {} workers and {} dedicated servers need {} ranks, the world has {}",
               spec, layout.workers, colocated ? 0 : shards, needed, worldSize);
  TETRAD_CHECK(!colocated || shards <= layout.workers, InvalidArgument,
               "--arch {}: {} colocated shards need at least as many workers (have {})", spec,
               shards, layout.workers);
  return layout;
}

}  // namespace tetrad::ps
