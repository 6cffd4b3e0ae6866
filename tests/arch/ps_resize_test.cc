// The parameter server's checkpoint images and their elastic resize
// (arch/ps/ps_shard_image.h, ps_resize.h): an image survives its bytes, a
// truncated one is refused, and the shards of 4 workers re-cut for 3 (and
// for 6) hold every partition once with its weights, their update counts
// rebased so the global iteration is kept, fresh clocks for the new workers,
// the staleness histogram summed into shard 0 and books by shard number.
#include "tetrad/arch/ps/ps_resize.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "tetrad/arch/ps/partition_plan.h"
#include "tetrad/arch/ps/ps_layout.h"
#include "tetrad/arch/ps/ps_shard_image.h"
#include "tetrad/core/error.h"

namespace tetrad::ps {
namespace {

const std::vector<ParameterSlot> kSlots = {{"a", 60, {}}, {"b", 40, {}}, {"c", 100, {}}};
const std::vector<BucketRange> kBuckets = {{0, 100, {}, "", {}}, {100, 100, {}, "", {}}};

PsLayout layoutOf(int workers, int shards) {
  PsLayout layout;
  layout.workers = workers;
  layout.shards = shards;
  layout.colocated = true;
  layout.mode = ShardMode::kWeights;
  layout.plan = planPartitions(kSlots, kBuckets, 100, shards);  // 9 partitions
  return layout;
}

// The images a checkpoint of `layout` holds after `iterations` iterations:
// partition p's weights are p + offset/1000, books name the shard.
std::vector<ShardImage> imagesOf(const PsLayout& layout, int64_t updates) {
  std::vector<ShardImage> images;
  for (int s = 0; s < layout.shards; ++s) {
    ShardImage& image = images.emplace_back();
    image.shard = uint32_t(s);
    image.workers = uint32_t(layout.workers);
    image.mode = uint8_t(layout.mode);
    for (size_t id : layout.plan.perShard[size_t(s)]) {
      PartitionImage& p = image.partitions.emplace_back();
      p.partition = id;
      p.count = layout.plan.partitions[id].count;
      p.seeded = true;
      p.applied = updates;
      for (size_t i = 0; i < p.count; ++i) p.weights.push_back(float(id) + float(i) / 1000);
      p.clock.assign(size_t(layout.workers), updates / layout.workers);
      p.readClock.assign(size_t(layout.workers), updates / layout.workers - 1);
      p.lastStaleness.assign(size_t(layout.workers), 1);
      p.pullStates[0] = {std::byte{7}};
    }
    image.stalenessHistogram = {{0, 10 + s}, {1, 5}};
    image.books = {std::byte(s)};
  }
  return images;
}

TEST(PsShardImage, SurvivesItsBytesAndRefusesATruncatedOne) {
  const PsLayout layout = layoutOf(4, 4);
  const ShardImage image = imagesOf(layout, 41)[1];
  const ByteBuffer bytes = writeShardImage(image);
  const ShardImage back = readShardImage(bytes);
  ASSERT_EQ(back.partitions.size(), image.partitions.size());
  EXPECT_EQ(back.partitions[0].weights, image.partitions[0].weights);
  EXPECT_EQ(back.partitions[0].readClock, image.partitions[0].readClock);
  EXPECT_EQ(back.stalenessHistogram, image.stalenessHistogram);
  EXPECT_EQ(back.books, image.books);
  const ByteBuffer cut(bytes.begin(), bytes.end() - 3);
  EXPECT_THROW(readShardImage(cut), ProtocolError);
  WorkerState worker{bytes, 12, {{1, bytes}, {3, cut}}};
  const ByteBuffer workerBytes = writeWorkerState(worker);
  const WorkerState read = readWorkerState(workerBytes, "test");
  EXPECT_EQ(read.clock, 12);
  ASSERT_EQ(read.shards.size(), 2u);
  EXPECT_EQ(read.shards[1].first, 3);
  EXPECT_EQ(read.shards[1].second.size(), cut.size());
  EXPECT_THROW(readWorkerState(ConstBytes(workerBytes).first(workerBytes.size() - 1), "test"),
               ProtocolError);
}

TEST(PsResize, ShardsOfFourWorkersRecutForThreeAndSix) {
  const PsLayout old = layoutOf(4, 4);
  const std::vector<ShardImage> images = imagesOf(old, 43);  // global iteration 10
  for (int workers : {3, 6}) {
    SCOPED_TRACE(workers);
    const PsLayout layout = layoutOf(workers, workers);
    std::vector<int> seen(layout.plan.partitions.size(), 0);
    std::map<int64_t, int64_t> histogram;
    for (int s = 0; s < layout.shards; ++s) {
      const ShardImage image = resizedShardImage(layout, s, images, 4);
      EXPECT_EQ(image.workers, uint32_t(workers));
      for (const auto& [staleness, count] : image.stalenessHistogram) histogram[staleness] += count;
      if (s < 4) {
        EXPECT_EQ(image.books, ByteBuffer{std::byte(s)});
      } else {
        EXPECT_TRUE(image.books.empty());
      }
      for (const PartitionImage& p : image.partitions) {
        ++seen[p.partition];
        EXPECT_EQ(layout.plan.partitions[p.partition].shard, s);
        ASSERT_EQ(p.weights.size(), p.count);
        EXPECT_EQ(p.weights[1], float(p.partition) + 0.001f);
        EXPECT_EQ(p.applied / workers, 10);  // the global iteration is kept
        EXPECT_EQ(p.clock, std::vector<int64_t>(size_t(workers), 0));
        EXPECT_EQ(p.lastStaleness, std::vector<int64_t>(size_t(workers), -1));
        EXPECT_TRUE(p.pullStates[0].empty());  // the shard's own, fresh
      }
    }
    for (int count : seen) EXPECT_EQ(count, 1);
    EXPECT_EQ(histogram, (std::map<int64_t, int64_t>{{0, 46}, {1, 20}}));
  }
  EXPECT_EQ(rebaseUpdates(43, 4, 3), 32);
  EXPECT_EQ(rebaseUpdates(40, 4, 6), 60);
}

TEST(PsResize, ACheckpointMissingAShardOrHoldingOneTwiceIsRefused) {
  const PsLayout old = layoutOf(4, 4);
  std::vector<ShardImage> images = imagesOf(old, 8);
  const PsLayout layout = layoutOf(3, 3);
  std::vector<ShardImage> missing(images.begin(), images.end() - 1);
  std::string message;
  for (int s = 0; s < 3 && message.empty(); ++s) {
    try {
      resizedShardImage(layout, s, missing, 4);
    } catch (const InvalidArgument& e) {
      message = e.what();
    }
  }
  EXPECT_NE(message.find("no shard of the checkpoint holds partition"), std::string::npos)
      << message;
  images[3].shard = 2;
  EXPECT_THROW(resizedShardImage(layout, 0, images, 4), InvalidArgument);
  EXPECT_THROW(resizedShardImage(layout, 0, imagesOf(old, 8), 5), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::ps
