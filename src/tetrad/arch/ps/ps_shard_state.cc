// Checkpoints of a parameter-server shard (ps_shard.h): its state as bytes,
// taken at a quiescent cut and handed back to a resumed run's shard.
//
// Layout (little-endian, as ByteWriter writes):
//   u32 magic "PSS1", u32 shard, u32 workers, u8 mode, u64 partitions, then
//   per partition: u64 id, u64 count, u8 seeded, i64 applied, u64 weight
//     count + floats, per worker i64 clock, read clock and last staleness,
//     per stream u64 length + CompressorState::serialize() of the pull state;
//   u64 histogram entries + (i64 staleness, i64 count) pairs, i64 updates
//   applied; u64 length + the server rank's books (empty without books).
// loadState() checks every count against this shard's plan before it
// changes anything, so a state of another run is refused whole.
#include <cstring>

#include "tetrad/arch/ps/ps_protocol.h"
#include "tetrad/arch/ps/ps_shard.h"
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

ByteBuffer PsShard::saveState() const {
  const ByteBuffer books = books_ != nullptr ? books_->save() : ByteBuffer{};
  size_t estimate = 64 + books.size() + 32 * stats_.stalenessHistogram.size();
  for (const Slot& slot : slots_) {
    estimate += 256 + slot.weights.size() * sizeof(float) + 24 * size_t(layout_.workers);
    for (const CompressorState& state : slot.pullStates) {
      estimate += 128;
      for (const auto& [name, buffer] : state.buffers) estimate += 64 + buffer.size() * 4;
    }
  }
  // Starts non-empty: ByteWriter's first insert into an empty vector draws
  // a false GCC 12 warning (core/fixed_byte_writer.h).
  ByteBuffer bytes(sizeof(kStateMagic));
  std::memcpy(bytes.data(), &kStateMagic, sizeof(kStateMagic));
  bytes.reserve(estimate);
  ByteWriter out(bytes);
  out.put<uint32_t>(uint32_t(shard_));
  out.put<uint32_t>(uint32_t(layout_.workers));
  out.put<uint8_t>(uint8_t(layout_.mode));
  out.put<uint64_t>(slots_.size());
  for (const Slot& slot : slots_) {
    out.put<uint64_t>(slot.partition);
    out.put<uint64_t>(slot.count);
    out.put<uint8_t>(slot.seeded ? 1 : 0);
    out.put<int64_t>(slot.applied);
    putFloats(out, slot.weights);
    for (int w = 0; w < layout_.workers; ++w) {
      out.put<int64_t>(slot.clock[size_t(w)]);
      out.put<int64_t>(slot.readClock[size_t(w)]);
      out.put<int64_t>(slot.lastStaleness[size_t(w)]);
    }
    for (const CompressorState& state : slot.pullStates) {
      const ByteBuffer one = state.serialize();
      out.put<uint64_t>(one.size());
      out.putBytes(one);
    }
  }
  putCounts(out, stats_.stalenessHistogram);
  out.put<int64_t>(stats_.updatesApplied);
  out.put<uint64_t>(books.size());
  out.putBytes(books);
  return bytes;
}

void PsShard::loadState(ConstBytes state) {
  ByteReader in(state);
  TETRAD_CHECK(in.get<uint32_t>("magic") == kStateMagic, ProtocolError,
               "not a parameter-server shard state");
  const auto shard = in.get<uint32_t>("shard");
  const auto workers = in.get<uint32_t>("workers");
  const auto mode = in.get<uint8_t>("mode");
  const auto slotCount = in.get<uint64_t>("partition count");
  TETRAD_CHECK(shard == uint32_t(shard_) && workers == uint32_t(layout_.workers) &&
                   mode == uint8_t(layout_.mode) && slotCount == slots_.size(),
               ProtocolError,
               "the state is of shard {} with {} workers, mode {} and {} partitions; this is "
               "shard {} with {} workers, mode {} and {} partitions",
               shard, workers, mode, slotCount, shard_, layout_.workers, uint8_t(layout_.mode),
               slots_.size());
  // Everything is read into copies first: a refused state changes nothing.
  std::vector<Slot> slots = slots_;
  for (Slot& slot : slots) {
    const auto partition = in.get<uint64_t>("partition");
    const auto count = in.get<uint64_t>("partition length");
    TETRAD_CHECK(partition == slot.partition && count == slot.count, ProtocolError,
                 "the state holds partition {} of {} floats where the plan has partition {} of {}",
                 partition, count, slot.partition, slot.count);
    const auto seeded = in.get<uint8_t>("seeded");
    TETRAD_CHECK(seeded <= 1, ProtocolError, "seeded flag {}", seeded);
    slot.seeded = seeded == 1;
    slot.applied = in.get<int64_t>("updates applied");
    slot.weights = getFloats(in, "weights");
    TETRAD_CHECK(slot.weights.empty() || slot.weights.size() == slot.count, ProtocolError,
                 "partition {}: {} weights for {} floats", slot.partition, slot.weights.size(),
                 slot.count);
    for (int w = 0; w < layout_.workers; ++w) {
      slot.clock[size_t(w)] = in.get<int64_t>("clock");
      slot.readClock[size_t(w)] = in.get<int64_t>("read clock");
      slot.lastStaleness[size_t(w)] = in.get<int64_t>("last staleness");
      slot.waitingFor[size_t(w)] = -1;
    }
    for (CompressorState& pullState : slot.pullStates) {
      const auto length = in.get<uint64_t>("pull state length");
      pullState = CompressorState::deserialize(in.getBytes(size_t(length), "pull state"));
    }
  }
  ExchangeStats stats;
  stats.stalenessHistogram = getCounts(in, "staleness histogram");
  stats.updatesApplied = in.get<int64_t>("updates applied");
  const auto booksLength = in.get<uint64_t>("books length");
  const ConstBytes books = in.getBytes(size_t(booksLength), "books");
  in.expectEnd("shard state");
  slots_ = std::move(slots);
  stats_ = std::move(stats);
  if (books_ != nullptr && !books.empty()) books_->load(books);
}

}  // namespace tetrad::ps
