#include "tetrad/arch/ps/ps_resize.h"

#include <vector>

#include "tetrad/core/error.h"

namespace tetrad::ps {

ShardImage resizedShardImage(const PsLayout& layout, int shard, std::span<const ShardImage> old,
                             int oldWorkers) {
  TETRAD_CHECK(oldWorkers >= 1 && !old.empty(), InvalidArgument,
               "parameter-server resize: {} shard states of {} workers", old.size(), oldWorkers);
  // Each old shard once, each partition of the plan in exactly one of them.
  std::vector<bool> shardSeen(old.size(), false);
  std::vector<const PartitionImage*> partitionOf(layout.plan.partitions.size(), nullptr);
  for (const ShardImage& image : old) {
    TETRAD_CHECK(image.shard < old.size() && !shardSeen[image.shard], InvalidArgument,
                 "parameter-server resize: the checkpoint holds shard {} twice or of {} shards",
                 image.shard, old.size());
    shardSeen[image.shard] = true;
    TETRAD_CHECK(image.workers == uint32_t(oldWorkers) && image.mode == uint8_t(layout.mode),
                 InvalidArgument,
                 "parameter-server resize: shard {} is of {} workers and mode {}, expected {} "
                 "and {}",
                 image.shard, image.workers, image.mode, oldWorkers, uint8_t(layout.mode));
    for (const PartitionImage& p : image.partitions) {
      TETRAD_CHECK(p.partition < partitionOf.size() && partitionOf[p.partition] == nullptr &&
                       p.count == layout.plan.partitions[p.partition].count,
                   InvalidArgument,
                   "parameter-server resize: shard {} holds partition {} of {} floats, which the "
                   "plan ({} partitions) does not have or another shard holds too",
                   image.shard, p.partition, p.count, partitionOf.size());
      partitionOf[p.partition] = &p;
    }
  }
  ShardImage image;
  image.shard = uint32_t(shard);
  image.workers = uint32_t(layout.workers);
  image.mode = uint8_t(layout.mode);
  for (size_t id : layout.plan.perShard.at(size_t(shard))) {
    const PartitionImage* from = partitionOf[id];
    TETRAD_CHECK(from != nullptr, InvalidArgument,
                 "parameter-server resize: no shard of the checkpoint holds partition {}", id);
    PartitionImage& p = image.partitions.emplace_back();
    p.partition = id;
    p.count = from->count;
    p.seeded = from->seeded;
    p.applied = rebaseUpdates(from->applied, oldWorkers, layout.workers);
    p.weights = from->weights;
    p.clock.assign(size_t(layout.workers), 0);
    p.readClock.assign(size_t(layout.workers), 0);
    p.lastStaleness.assign(size_t(layout.workers), -1);
    // Pull states left empty: the shard keeps those it was built with.
  }
  for (const ShardImage& one : old) {
    if (shard == 0) {
      for (const auto& [staleness, count] : one.stalenessHistogram) {
        image.stalenessHistogram[staleness] += count;
      }
    }
    if (one.shard == uint32_t(shard)) image.books = one.books;
  }
  // Partition 0's count is the shard's reported one (ps_shard.cc).
  for (const PartitionImage& p : image.partitions) {
    if (p.partition == 0) image.updatesApplied = p.applied;
  }
  return image;
}

}  // namespace tetrad::ps
