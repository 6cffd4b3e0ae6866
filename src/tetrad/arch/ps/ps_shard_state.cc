// Checkpoints of a parameter-server shard (ps_shard.h): its state as bytes,
// taken at a quiescent cut and handed back to a resumed run's shard.
//
// The bytes are a ShardImage (ps_shard_image.h, which gives the layout),
// written and read here. loadState() checks every count against this
// shard's plan before it changes anything, so a state of another run is
// refused whole; an empty pull state keeps the one the shard was built with.
#include <cstring>

#include "tetrad/arch/ps/ps_protocol.h"
#include "tetrad/arch/ps/ps_shard.h"
#include "tetrad/arch/ps/ps_shard_image.h"
#include "tetrad/core/error.h"

namespace tetrad::ps {
namespace {

constexpr uint32_t kStateMagic = 0x31535350;  // "PSS1"

void putFloats(ByteWriter& out, const std::vector<float>& values) {
  out.put<uint64_t>(values.size());
  out.putBytes(std::as_bytes(std::span(values)));
}

std::vector<float> getFloats(ByteReader& in, std::string_view what) {
  const auto count = in.get<uint64_t>(what);
  TETRAD_CHECK(count <= in.remaining() / sizeof(float), ProtocolError, "{}: {} floats in {} bytes",
               what, count, in.remaining());
  const ConstBytes bytes = in.getBytes(size_t(count) * sizeof(float), what);
  std::vector<float> values(static_cast<size_t>(count));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

}  // namespace

void PsShard::checkQuiescent(int worker) const {
  TETRAD_CHECK(doneCount_ == 0, ProtocolError,
               "worker {} asked for a checkpoint of shard {} after {} workers finished", worker,
               shard_, doneCount_);
  for (const Slot& slot : slots_) {
    TETRAD_CHECK(slot.received == 0, ProtocolError,
                 "worker {} asked for a checkpoint of shard {} during a round of partition {} "
                 "({} of {} pushes in)",
                 worker, shard_, slot.partition, slot.received, layout_.workers);
    for (int w = 0; w < layout_.workers; ++w) {
      TETRAD_CHECK(slot.waitingFor[size_t(w)] < 0, ProtocolError,
                   "worker {} asked for a checkpoint of shard {} while worker {}'s pull of "
                   "partition {} waits for slower workers",
                   worker, shard_, w, slot.partition);
    }
  }
}

void PsShard::onCheckpoint(Transport& world, int worker, size_t requestBytes) {
  checkQuiescent(worker);
  // The request and the reply are checkpoint traffic, not training.
  if (books_ != nullptr) books_->excludeTraffic(0, requestBytes);
  const ByteBuffer state = saveState();
  ByteBuffer bytes;
  bytes.reserve(kReplyHeaderBytes + state.size());
  ByteWriter writer(bytes);
  writeReplyHeader(writer, {uint32_t(shard_), false, stats_.updatesApplied, -1});
  writer.putBytes(state);
  const size_t replyBytes = bytes.size();
  replies_.push_back({std::move(bytes), nullptr});
  replies_.back().request = world.isend(worker, layout_.replyTag, replies_.back().bytes);
  if (books_ != nullptr) books_->excludeTraffic(replyBytes, 0);
}

void PsShard::onRestore(Transport& world, int worker, ConstBytes state) {
  checkQuiescent(worker);
  try {
    loadState(state);
  } catch (const ProtocolError& error) {
    TETRAD_FAIL(ProtocolError, "state of shard {} from worker {}: {}", shard_, worker,
                error.what());
  }
  ByteBuffer bytes;
  bytes.reserve(kReplyHeaderBytes);
  ByteWriter writer(bytes);
  writeReplyHeader(writer, {uint32_t(shard_), false, stats_.updatesApplied, -1});
  const size_t replyBytes = bytes.size();
  replies_.push_back({std::move(bytes), nullptr});
  replies_.back().request = world.isend(worker, layout_.replyTag, replies_.back().bytes);
  // The books were loaded as the checkpoint left them; this reply is not training.
  if (books_ != nullptr) books_->excludeTraffic(replyBytes, 0);
}

ByteBuffer writeWorkerState(const WorkerState& state) {
  size_t size = 32 + state.compressorStates.size();
  for (const auto& [shard, bytes] : state.shards) size += 16 + bytes.size();
  // Starts non-empty (the GCC 12 warning of writeShardImage below).
  const uint64_t length = state.compressorStates.size();
  ByteBuffer bytes(sizeof(length));
  std::memcpy(bytes.data(), &length, sizeof(length));
  bytes.reserve(size);
  ByteWriter out(bytes);
  out.putBytes(state.compressorStates);
  out.put<int64_t>(state.clock);
  out.put<uint32_t>(uint32_t(state.shards.size()));
  for (const auto& [shard, one] : state.shards) {
    out.put<uint32_t>(uint32_t(shard));
    out.put<uint64_t>(one.size());
    out.putBytes(one);
  }
  return bytes;
}

WorkerState readWorkerState(ConstBytes bytes, std::string_view who) {
  WorkerState state;
  ByteReader in(bytes);
  const auto length = in.get<uint64_t>("compressor states length");
  state.compressorStates = in.getBytes(size_t(length), "compressor states");
  state.clock = in.get<int64_t>("push clock");
  TETRAD_CHECK(state.clock >= 0, ProtocolError, "{}: push clock {}", who, state.clock);
  const auto count = in.get<uint32_t>("shard count");
  for (uint32_t i = 0; i < count; ++i) {
    const auto shard = in.get<uint32_t>("shard");
    const auto size = in.get<uint64_t>("shard state length");
    state.shards.emplace_back(int(shard), in.getBytes(size_t(size), "shard state"));
  }
  in.expectEnd("parameter-server state");
  return state;
}

ByteBuffer writeShardImage(const ShardImage& image) {
  size_t estimate = 64 + image.books.size() + 32 * image.stalenessHistogram.size();
  for (const PartitionImage& p : image.partitions) {
    estimate += 256 + p.weights.size() * sizeof(float) + 24 * p.clock.size();
    for (const ByteBuffer& state : p.pullStates) estimate += 8 + state.size();
  }
  // Starts non-empty: ByteWriter's first insert into an empty vector draws
  // a false GCC 12 warning (core/fixed_byte_writer.h).
  ByteBuffer bytes(sizeof(kStateMagic));
  std::memcpy(bytes.data(), &kStateMagic, sizeof(kStateMagic));
  bytes.reserve(estimate);
  ByteWriter out(bytes);
  out.put<uint32_t>(image.shard);
  out.put<uint32_t>(image.workers);
  out.put<uint8_t>(image.mode);
  out.put<uint64_t>(image.partitions.size());
  for (const PartitionImage& p : image.partitions) {
    out.put<uint64_t>(p.partition);
    out.put<uint64_t>(p.count);
    out.put<uint8_t>(p.seeded ? 1 : 0);
    out.put<int64_t>(p.applied);
    putFloats(out, p.weights);
    for (uint32_t w = 0; w < image.workers; ++w) {
      out.put<int64_t>(p.clock.at(w));
      out.put<int64_t>(p.readClock.at(w));
      out.put<int64_t>(p.lastStaleness.at(w));
    }
    for (const ByteBuffer& state : p.pullStates) {
      out.put<uint64_t>(state.size());
      out.putBytes(state);
    }
  }
  putCounts(out, image.stalenessHistogram);
  out.put<int64_t>(image.updatesApplied);
  out.put<uint64_t>(image.books.size());
  out.putBytes(image.books);
  return bytes;
}

ShardImage readShardImage(ConstBytes bytes) {
  ByteReader in(bytes);
  TETRAD_CHECK(in.get<uint32_t>("magic") == kStateMagic, ProtocolError,
               "not a parameter-server shard state");
  ShardImage image;
  image.shard = in.get<uint32_t>("shard");
  image.workers = in.get<uint32_t>("workers");
  image.mode = in.get<uint8_t>("mode");
  const auto partitions = in.get<uint64_t>("partition count");
  // Each partition takes at least 41 bytes: a count past the end is refused
  // before anything is allocated for it.
  TETRAD_CHECK(partitions <= in.remaining() / 41 && image.workers <= in.remaining() / 24 + 1,
               ProtocolError, "{} partitions of {} workers in {} bytes", partitions, image.workers,
               in.remaining());
  image.partitions.resize(size_t(partitions));
  for (PartitionImage& p : image.partitions) {
    p.partition = in.get<uint64_t>("partition");
    p.count = in.get<uint64_t>("partition length");
    const auto seeded = in.get<uint8_t>("seeded");
    TETRAD_CHECK(seeded <= 1, ProtocolError, "seeded flag {}", seeded);
    p.seeded = seeded == 1;
    p.applied = in.get<int64_t>("updates applied");
    p.weights = getFloats(in, "weights");
    TETRAD_CHECK(p.weights.empty() || p.weights.size() == p.count, ProtocolError,
                 "partition {}: {} weights for {} floats", p.partition, p.weights.size(), p.count);
    for (uint32_t w = 0; w < image.workers; ++w) {
      p.clock.push_back(in.get<int64_t>("clock"));
      p.readClock.push_back(in.get<int64_t>("read clock"));
      p.lastStaleness.push_back(in.get<int64_t>("last staleness"));
    }
    for (ByteBuffer& state : p.pullStates) {
      const auto length = in.get<uint64_t>("pull state length");
      const ConstBytes one = in.getBytes(size_t(length), "pull state");
      state.assign(one.begin(), one.end());
    }
  }
  image.stalenessHistogram = getCounts(in, "staleness histogram");
  image.updatesApplied = in.get<int64_t>("updates applied");
  const auto booksLength = in.get<uint64_t>("books length");
  const ConstBytes books = in.getBytes(size_t(booksLength), "books");
  image.books.assign(books.begin(), books.end());
  in.expectEnd("shard state");
  return image;
}

ByteBuffer PsShard::saveState() const {
  ShardImage image;
  image.shard = uint32_t(shard_);
  image.workers = uint32_t(layout_.workers);
  image.mode = uint8_t(layout_.mode);
  image.partitions.reserve(slots_.size());
  for (const Slot& slot : slots_) {
    PartitionImage& p = image.partitions.emplace_back();
    p.partition = slot.partition;
    p.count = slot.count;
    p.seeded = slot.seeded;
    p.applied = slot.applied;
    p.weights = slot.weights;
    p.clock = slot.clock;
    p.readClock = slot.readClock;
    p.lastStaleness = slot.lastStaleness;
    for (int s = 0; s < kExchangeStreams; ++s) p.pullStates[s] = slot.pullStates[s].serialize();
  }
  image.stalenessHistogram = stats_.stalenessHistogram;
  image.updatesApplied = stats_.updatesApplied;
  if (books_ != nullptr) image.books = books_->save();
  return writeShardImage(image);
}

void PsShard::loadState(ConstBytes state) {
  const ShardImage image = readShardImage(state);
  TETRAD_CHECK(image.shard == uint32_t(shard_) && image.workers == uint32_t(layout_.workers) &&
                   image.mode == uint8_t(layout_.mode) && image.partitions.size() == slots_.size(),
               ProtocolError,
               "the state is of shard {} with {} workers, mode {} and {} partitions; this is "
               "shard {} with {} workers, mode {} and {} partitions",
               image.shard, image.workers, image.mode, image.partitions.size(), shard_,
               layout_.workers, uint8_t(layout_.mode), slots_.size());
  // Everything is checked into copies first: a refused state changes nothing.
  std::vector<Slot> slots = slots_;
  for (size_t i = 0; i < slots.size(); ++i) {
    Slot& slot = slots[i];
    const PartitionImage& p = image.partitions[i];
    TETRAD_CHECK(p.partition == slot.partition && p.count == slot.count, ProtocolError,
                 "the state holds partition {} of {} floats where the plan has partition {} of {}",
                 p.partition, p.count, slot.partition, slot.count);
    slot.seeded = p.seeded;
    slot.applied = p.applied;
    slot.weights = p.weights;
    slot.clock = p.clock;
    slot.readClock = p.readClock;
    slot.lastStaleness = p.lastStaleness;
    slot.waitingFor.assign(size_t(layout_.workers), -1);
    for (int s = 0; s < kExchangeStreams; ++s) {
      // Empty (a resize's image): the state the shard was built with.
      if (!p.pullStates[s].empty()) {
        slot.pullStates[s] = CompressorState::deserialize(p.pullStates[s]);
      }
    }
  }
  slots_ = std::move(slots);
  stats_.stalenessHistogram = image.stalenessHistogram;
  stats_.updatesApplied = image.updatesApplied;
  if (books_ != nullptr && !image.books.empty()) books_->load(image.books);
}

}  // namespace tetrad::ps
