// The parameter server's checkpoint formats (internal to arch/ps).
//
// WorkerState: what a worker's Exchange::saveState() returns (ps_exchange.cc):
//   u64 length + the push compressor states (exchange.h), i64 push clock,
//   u32 shards, per shard this worker answers for: u32 shard, u64 length +
//   the shard's state.
//
// ShardImage: a shard's state as values. PsShard::saveState() fills one and
// writes it, loadState() reads one and checks it against the shard's plan,
// and an elastic resize (ps_resize.h) re-cuts the images of one worker count
// into those of another. Layout (little-endian, as ByteWriter writes):
//   u32 magic "PSS1", u32 shard, u32 workers, u8 mode, u64 partitions, then
//   per partition: u64 id, u64 count, u8 seeded, i64 applied, u64 weight
//     count + floats, per worker i64 clock, read clock and last staleness,
//     per stream u64 length + CompressorState::serialize() of the pull state;
//   u64 histogram entries + (i64 staleness, i64 count) pairs, i64 updates
//   applied; u64 length + the server rank's books (empty without books).
//
// Thread-safety: value types and free functions.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "tetrad/arch/exchange.h"
#include "tetrad/core/bytes.h"

namespace tetrad::ps {

struct PartitionImage {
  uint64_t partition = 0, count = 0;
  bool seeded = false;  // kWeights: the weights were set
  int64_t applied = 0;  // kWeights: updates applied to this partition
  std::vector<float> weights;
  // One per worker: updates applied, the slowest clock at its last read,
  // the staleness of its last update.
  std::vector<int64_t> clock, readClock, lastStaleness;
  // CompressorState::serialize(); empty: the shard keeps its own.
  ByteBuffer pullStates[kExchangeStreams];
};

struct ShardImage {
  uint32_t shard = 0, workers = 0;
  uint8_t mode = 0;  // ShardMode
  std::vector<PartitionImage> partitions;
  std::map<int64_t, int64_t> stalenessHistogram;
  int64_t updatesApplied = 0;
  ByteBuffer books;  // a dedicated server rank's ServerBooks::save(), or empty
};

struct WorkerState {  // views: valid while the bytes read or written are
  ConstBytes compressorStates;
  int64_t clock = 0;
  std::vector<std::pair<int, ConstBytes>> shards;  // (shard, its state)
};

ByteBuffer writeWorkerState(const WorkerState& state);
// ProtocolError naming `who` when `bytes` is not a worker's state.
WorkerState readWorkerState(ConstBytes bytes, std::string_view who);

ByteBuffer writeShardImage(const ShardImage& image);
// ProtocolError when `bytes` is not a shard state (a count past the end,
// trailing bytes, another magic).
ShardImage readShardImage(ConstBytes bytes);

}  // namespace tetrad::ps
