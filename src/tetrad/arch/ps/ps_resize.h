// Elastic resize of a parameter server (docs/reliability.md, "Elastic
// training"): the shard states a run of W workers checkpointed, re-cut into
// the states of this run's shards for W' workers. Partition ids depend on
// the model, the buckets and --ps-partition only, not on the worker or shard
// count (partition_plan.h), so each partition's state moves to the shard the
// new plan gives it:
//
//   what                     in the resized run
//   weights, seeded          kept: under push-pull they are the model
//   updates applied a        rebased to W' pushes per iteration, a·W'/W, so
//                            the global iteration a/W and the update limit
//                            (total iterations · W') continue where they were
//   clocks, read clocks,     start afresh for the W' workers (each worker's
//     last staleness         push clock restarts at 0 as well)
//   pull-compressor states   start afresh (seeded for the shard's new rank)
//   staleness histogram      the old shards' summed into shard 0's
//   books (dedicated shard)  go to the shard of the same number; those of a
//                            shard the resized run does not have are dropped
//
// Thread-safety: a free function.
#pragma once

#include <span>

#include "tetrad/arch/ps/ps_layout.h"
#include "tetrad/arch/ps/ps_shard_image.h"

namespace tetrad::ps {

// The image of shard `shard` of `layout` cut from `old`, the images of every
// shard of the checkpointed run of `oldWorkers` workers (any order).
// InvalidArgument when `old` is not one image per shard 0..K-1 holding every
// partition of the plan once, or mixes modes.
ShardImage resizedShardImage(const PsLayout& layout, int shard, std::span<const ShardImage> old,
                             int oldWorkers);

}  // namespace tetrad::ps
