#include "tetrad/arch/ps/partition_plan.h"

#include <algorithm>
#include <numeric>

#include "tetrad/core/error.h"

namespace tetrad {

PartitionPlan planPartitions(std::span<const ParameterSlot> slots,
                             std::span<const BucketRange> buckets, uint64_t partitionBytes,
                             int shards) {
  TETRAD_CHECK(shards >= 1, InvalidArgument, "parameter server: {} shards (need at least 1)",
               shards);
  TETRAD_CHECK(partitionBytes >= sizeof(float), InvalidArgument,
               "invalid --ps-partition {}: a partition holds at least one float (4 bytes)",
               partitionBytes);
  PartitionPlan plan;
  plan.perBucket.resize(buckets.size());
  const size_t maxFloats = size_t(partitionBytes / sizeof(float));
  size_t offset = 0;
  for (const ParameterSlot& slot : slots) {
    // Buckets come in send order (a scheduler may send the last layer's
    // first): find the one holding this tensor.
    size_t bucket = 0;
    while (bucket < buckets.size() &&
           !(offset >= buckets[bucket].offset &&
             offset < buckets[bucket].offset + std::max<size_t>(buckets[bucket].count, 1))) {
      ++bucket;
    }
    TETRAD_CHECK(bucket < buckets.size() && offset >= buckets[bucket].offset &&
                     offset + slot.count <= buckets[bucket].offset + buckets[bucket].count,
                 InvalidArgument, "parameter server: tensor {} is not inside one bucket",
                 slot.name);
    const size_t pieces = std::max<size_t>(1, (slot.count + maxFloats - 1) / maxFloats);
    for (size_t i = 0; i < pieces && slot.count > 0; ++i) {
      // Near-equal pieces: the first (count % pieces) get one more float.
      const size_t begin = slot.count * i / pieces, end = slot.count * (i + 1) / pieces;
      plan.perBucket[bucket].push_back(plan.partitions.size());
      plan.partitions.push_back({offset + begin, end - begin, bucket, 0});
    }
    offset += slot.count;
  }
  TETRAD_CHECK(size_t(shards) <= plan.partitions.size(), InvalidArgument,
               "parameter server: {} shards but the model has only {} partitions of at most {} "
               "bytes (use fewer shards or a smaller --ps-partition)",
               shards, plan.partitions.size(), partitionBytes);

  std::vector<size_t> order(plan.partitions.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return plan.partitions[a].count > plan.partitions[b].count;
  });
  plan.shardBytes.assign(size_t(shards), 0);
  for (size_t id : order) {
    const int shard = int(std::min_element(plan.shardBytes.begin(), plan.shardBytes.end()) -
                          plan.shardBytes.begin());
    plan.partitions[id].shard = shard;
    plan.shardBytes[size_t(shard)] += plan.partitions[id].count * sizeof(float);
  }
  plan.perShard.resize(size_t(shards));
  for (size_t id = 0; id < plan.partitions.size(); ++id) {
    plan.perShard[size_t(plan.partitions[id].shard)].push_back(id);
  }
  return plan;
}

}  // namespace tetrad
