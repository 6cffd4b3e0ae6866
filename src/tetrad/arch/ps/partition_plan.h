// PartitionPlan: how a parameter server cuts the model and spreads it over
// its shards (as BytePS and ps-lite do) — a pure function.
//
// Every tensor of the flat buffer (sched/bucketing.h's ParameterSlot, as a
// key of BytePS) is one partition, or the fewest near-equal pieces of at
// most `partitionBytes` when it is larger. A partition never crosses a
// tensor or a bucket, so each belongs to exactly one bucket and keeps its
// own compressor state. Partitions
// are then assigned to `shards` servers balanced by bytes: largest first, each
// to the least-loaded shard (ties: lowest shard id), so loads differ by at
// most one partition. More shards than partitions is an error naming both.
//
// Thread-safety: pure functions; plans are plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tetrad/sched/bucketing.h"

namespace tetrad {

struct Partition {
  size_t offset = 0;  // floats, into the flat buffer
  size_t count = 0;
  size_t bucket = 0;  // the bucket it lies in
  int shard = 0;
};

struct PartitionPlan {
  std::vector<Partition> partitions;           // in buffer order
  std::vector<std::vector<size_t>> perBucket;  // partition ids of each bucket, in order
  std::vector<std::vector<size_t>> perShard;   // partition ids of each shard, in order
  std::vector<uint64_t> shardBytes;
};

// `slots` in buffer order; every bucket is a run of whole slots.
PartitionPlan planPartitions(std::span<const ParameterSlot> slots,
                             std::span<const BucketRange> buckets, uint64_t partitionBytes,
                             int shards);

}  // namespace tetrad
