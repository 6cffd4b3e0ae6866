// PsLayout: everything the workers and the shards of one parameter-server
// run agree on (internal to arch/ps): who is who, the partition plan, the
// compressors, the tags and the synchronisation rule.
//
// Ranks 0..W-1 are workers. Shard s lives on rank W + s (dedicated) or in a
// task of worker rank s (colocated, s < W).
//
// makePsLayout() builds it from the exchange's context (partition plan, tags
// reserved in a fixed order, so every rank holds the same layout) and checks
// that the world has a rank for every worker and dedicated shard.
//
// Thread-safety: immutable after construction; shared by a rank's worker and
// its colocated shard task.
#pragma once

#include <cstdint>
#include <string>

#include "tetrad/arch/exchange.h"
#include "tetrad/arch/ps/partition_plan.h"

namespace tetrad::ps {

enum class ShardMode {
  kSum,      // collective streams: sum every worker's push, reply the sum to all
  kWeights,  // push-pull: hold the weights, apply each update, reply the weights
};

struct PsLayout {
  int workers = 0;  // W
  int shards = 0;   // K
  bool colocated = false;
  PartitionPlan plan;
  std::string compress;      // what workers push
  std::string pullCompress;  // what shards reply
  ShardMode mode = ShardMode::kSum;
  int64_t stalenessBound = 0;  // kWeights: S, or kUnboundedStaleness
  int64_t updateLimit = 0;     // kWeights: stop after this many updates
  Tag requestTag = 0;          // worker -> shard (recvAny at the shard)
  Tag replyTag = 0;            // shard -> worker
  Tag barrierTag = 0;          // among workers, after the shards are seeded
  Tag checkpointTag = 0;       // two collective spans: barriers around a checkpoint

  int shardRank(int shard) const { return colocated ? shard : workers + shard; }
  // The worker that takes shard `shard`'s state into its checkpoints (a
  // colocated shard's own worker).
  int checkpointOwner(int shard) const { return shard % workers; }
  // The shard served by `rank`, or -1.
  int shardOf(int rank) const {
    if (colocated) return rank < shards ? rank : -1;
    return rank >= workers && rank < workers + shards ? rank - workers : -1;
  }
};

// The layout of `shards` shards (colocated or dedicated) for `context`;
// reserves the parameter server's tags in context.tags. Throws
// InvalidArgument when the world's size does not fit the workers and shards,
// naming `spec` (the --arch spec).
PsLayout makePsLayout(int shards, bool colocated, const ExchangeContext& context,
                      const std::string& spec);

}  // namespace tetrad::ps
