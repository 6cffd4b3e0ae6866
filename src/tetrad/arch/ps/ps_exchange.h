// ps[:K][:colocated] — a sharded parameter server (as BytePS and ps-lite run
// one): the model is cut into partitions spread over K shards
// (partition_plan.h); workers push to the shard of each partition and pull
// from it (ps_shard.h for what a shard does, ps_protocol.h for the wire).
//
// Collective streams (bsp, local): average() pushes each partition of the
// bucket, compressed with the run's compressor, and pulls the sum,
// compressed with the pull compressor (default none), then divides by W — the
// same mean as an all-reduce, up to float rounding.
// Push-pull (ssp, asp): start() has worker 0 seed the shards with the
// initial weights; pushPull() pushes the model change of one local step and
// pulls the latest weights.
//
// Placement: dedicated shards are ranks W..W+K-1, whose main function calls
// serve(); colocated shards are tasks in worker ranks 0..K-1, started by
// start() and joined by finish(). Messages from a worker to its own
// colocated shard stay inside the rank (transport.h: messages to self).
//
// Checkpoints: saveState() takes the worker's push states and clock and, at
// a quiescent cut between two worker barriers, the state of every shard the
// worker answers for (PsLayout::checkpointOwner); loadState() hands each
// shard its state back before the resumed run's first push (ps_shard.h).
#pragma once

#include "tetrad/arch/exchange.h"

namespace tetrad {

ExchangePtr makePsExchange(int shards, bool colocated, const ExchangeContext& context);

}  // namespace tetrad
