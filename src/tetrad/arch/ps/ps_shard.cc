// Cost, per round of one partition of n floats on a shard with W workers
// (collective streams): W incoming pushes and W outgoing replies over the
// shard's one link: 2W·α + 2W·b·β for b wire bytes per message (dedicated; a
// colocated shard's own worker uses the loopback). With K shards the model's
// bytes are spread over K links: ≈ 2W/K·4n·β per iteration per shard link.
#include "tetrad/arch/ps/ps_shard.h"

#include <algorithm>
#include <limits>

#include "tetrad/arch/ps/ps_protocol.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"

namespace tetrad::ps {

PsShard::PsShard(const PsLayout& layout, int shard, uint64_t seed)
    : layout_(layout),
      shard_(shard),
      push_(makeCompressor(layout.compress)),
      pull_(makeCompressor(layout.pullCompress)),
      done_(size_t(layout.workers), false) {
  slotOfPartition_.assign(layout.plan.partitions.size(), -1);
  for (size_t id : layout.plan.perShard.at(size_t(shard))) {
    Slot slot;
    slot.partition = id;
    slot.count = layout.plan.partitions[id].count;
    slot.packets.resize(size_t(layout.workers));
    for (int s = 0; s < kExchangeStreams; ++s) {
      slot.pullStates[s].seed = mixSeed(seed, 0x7000 + (uint64_t(s) << 32) + id);
      slot.pullStates[s].rank = layout.shardRank(shard);
    }
    slot.clock.assign(size_t(layout.workers), 0);
    slot.readClock.assign(size_t(layout.workers), 0);
    slot.waitingFor.assign(size_t(layout.workers), -1);
    slot.lastStaleness.assign(size_t(layout.workers), -1);
    slotOfPartition_[id] = int(slots_.size());
    slots_.push_back(std::move(slot));
  }
}

PsShard::~PsShard() = default;

void PsShard::run(Transport& world, ServerBooks* books) {
  books_ = books;
  try {
    while (doneCount_ < layout_.workers) {
      Message message;
      try {
        message = world.recvAny(layout_.requestTag);
      } catch (const TimeoutError& error) {
        TETRAD_FAIL(TimeoutError, "{} (waiting for {})", error.what(), awaited());
      }
      TETRAD_CHECK(message.source < layout_.workers, ProtocolError,
                   "request from rank {}, which is not a worker", message.source);
      onRequest(world, message.source, message.bytes);
      reapReplies(false);
    }
    reapReplies(true);
  } catch (const Error&) {  // not `...`: SimGrid stops actors with its own exception
    rethrowWithPrefix(
        fmt::format("parameter server shard {} (rank {}): ", shard_, layout_.shardRank(shard_)));
  }
}

void PsShard::onRequest(Transport& world, int worker, ConstBytes bytes) {
  ByteReader reader(bytes);
  RequestHeader header;
  try {
    header = readRequestHeader(reader);
  } catch (const ProtocolError& error) {
    TETRAD_FAIL(ProtocolError, "malformed request from worker {}: {}", worker, error.what());
  }
  if (header.kind == RequestKind::kDone) {
    TETRAD_CHECK(!done_[size_t(worker)], ProtocolError, "worker {} finished twice", worker);
    done_[size_t(worker)] = true;
    ++doneCount_;
    if (layout_.mode == ShardMode::kWeights) replyWhenAllowed(world);
    return;
  }
  if (header.kind == RequestKind::kCheckpoint || header.kind == RequestKind::kRestore) {
    TETRAD_CHECK(worker == layout_.checkpointOwner(shard_), ProtocolError,
                 "worker {} asked for a checkpoint of shard {}, which worker {} answers for",
                 worker, shard_, layout_.checkpointOwner(shard_));
    if (header.kind == RequestKind::kCheckpoint) {
      onCheckpoint(world, worker, bytes.size());
    } else {
      onRestore(world, worker, reader.getBytes(reader.remaining(), "shard state"));
    }
    return;
  }
  TETRAD_CHECK(
      header.partition < slotOfPartition_.size() && slotOfPartition_[header.partition] >= 0,
      ProtocolError, "worker {} sent partition {}, which this shard does not hold", worker,
      header.partition);
  Slot& slot = slots_[size_t(slotOfPartition_[header.partition])];
  const ConstBytes payload = reader.getBytes(reader.remaining(), "payload");
  if (header.kind == RequestKind::kInit) {
    TETRAD_CHECK(layout_.mode == ShardMode::kWeights && worker == 0 && !slot.seeded, ProtocolError,
                 "unexpected initial weights of partition {} from worker {}", slot.partition,
                 worker);
    slot.weights.assign(slot.count, 0.0f);
    makeCompressor("none")->decodeAdd(payload, slot.weights);
    slot.seeded = true;
    reply(world, worker, slot, {});
    return;
  }
  TETRAD_CHECK(header.stream < kExchangeStreams, ProtocolError, "worker {} sent stream {}", worker,
               header.stream);
  if (layout_.mode == ShardMode::kSum) {
    onSum(world, slot, worker, payload, header.stream);
  } else {
    onPush(world, slot, worker, header.clock, payload);
  }
}

void PsShard::onSum(Transport& world, Slot& slot, int worker, ConstBytes packet, int stream) {
  TETRAD_CHECK(slot.packets[size_t(worker)].empty() && !packet.empty(), ProtocolError,
               "worker {} pushed partition {} twice in one round (or an empty packet)", worker,
               slot.partition);
  TETRAD_CHECK(slot.stream < 0 || slot.stream == stream, ProtocolError,
               "worker {} pushed partition {} for stream {} during a round of stream {}", worker,
               slot.partition, stream, slot.stream);
  slot.stream = stream;
  slot.packets[size_t(worker)].assign(packet.begin(), packet.end());
  if (++slot.received < layout_.workers) return;

  slot.sum.assign(slot.count, 0.0f);
  for (int w = 0; w < layout_.workers; ++w) {
    try {
      push_->decodeAdd(slot.packets[size_t(w)], slot.sum);
    } catch (const ProtocolError& error) {
      TETRAD_FAIL(ProtocolError, "packet of partition {} from worker {}: {}", slot.partition, w,
                  error.what());
    }
    slot.packets[size_t(w)].clear();
  }
  const Packet summed = pull_->encode(slot.sum, slot.pullStates[stream]);
  slot.received = 0;
  slot.stream = -1;
  for (int w = 0; w < layout_.workers; ++w) {
    ByteBuffer bytes;
    ByteWriter writer(bytes);
    writeReplyHeader(writer, {uint32_t(slot.partition), false, 0, -1});
    writer.putBytes(summed.bytes);
    reply(world, w, slot, std::move(bytes));
  }
}

void PsShard::onPush(Transport& world, Slot& slot, int worker, int64_t clock, ConstBytes packet) {
  TETRAD_CHECK(slot.seeded, ProtocolError,
               "worker {} pushed partition {} before worker 0 seeded it", worker, slot.partition);
  TETRAD_CHECK(clock == slot.clock[size_t(worker)] && slot.waitingFor[size_t(worker)] < 0,
               ProtocolError, "worker {} pushed partition {} at clock {}, expected clock {}",
               worker, slot.partition, clock, slot.clock[size_t(worker)]);
  slot.change.assign(slot.count, 0.0f);
  try {
    push_->decodeAdd(packet, slot.change);
  } catch (const ProtocolError& error) {
    TETRAD_FAIL(ProtocolError, "packet of partition {} from worker {}: {}", slot.partition, worker,
                error.what());
  }
  const float scale = 1.0f / float(layout_.workers);
  for (size_t i = 0; i < slot.count; ++i) slot.weights[i] += slot.change[i] * scale;
  slot.lastStaleness[size_t(worker)] = clock - slot.readClock[size_t(worker)];
  if (slot.partition == 0) ++stats_.stalenessHistogram[slot.lastStaleness[size_t(worker)]];
  ++slot.applied;
  if (slot.partition == 0) stats_.updatesApplied = slot.applied;
  slot.clock[size_t(worker)] = clock + 1;
  const int64_t bound = layout_.stalenessBound;
  slot.waitingFor[size_t(worker)] = bound < 0 ? 0 : std::max<int64_t>(0, clock + 1 - bound);
  replyWhenAllowed(world);
}

std::string PsShard::awaited() const {
  std::string workers;
  for (int w = 0; w < layout_.workers; ++w) {
    bool missing = !done_[size_t(w)];
    if (layout_.mode == ShardMode::kSum) {
      // In a round that has begun: the workers whose push is missing.
      for (const Slot& slot : slots_) {
        if (slot.received > 0) missing = missing && slot.packets[size_t(w)].empty();
      }
    }
    if (missing) workers += fmt::format("{}worker {} (rank {})", workers.empty() ? "" : ", ", w, w);
  }
  return workers.empty() ? "no worker" : workers;
}

int64_t PsShard::slowestClock(const Slot& slot) const {
  int64_t slowest = std::numeric_limits<int64_t>::max();
  for (int w = 0; w < layout_.workers; ++w) {
    if (!done_[size_t(w)]) slowest = std::min(slowest, slot.clock[size_t(w)]);
  }
  return slowest;
}

void PsShard::replyWhenAllowed(Transport& world) {
  for (Slot& slot : slots_) {
    const int64_t slowest = slowestClock(slot);
    for (int w = 0; w < layout_.workers; ++w) {
      const int64_t need = slot.waitingFor[size_t(w)];
      if (need < 0 || slowest < need) continue;
      slot.waitingFor[size_t(w)] = -1;
      slot.readClock[size_t(w)] =
          slowest == std::numeric_limits<int64_t>::max() ? slot.clock[size_t(w)] : slowest;
      reply(world, w, slot, weightsReply(slot, w));
    }
  }
}

ByteBuffer PsShard::weightsReply(Slot& slot, int worker) {
  ByteBuffer bytes;
  ByteWriter writer(bytes);
  const bool stop = layout_.updateLimit > 0 && slot.applied >= layout_.updateLimit;
  writeReplyHeader(
      writer, {uint32_t(slot.partition), stop, slot.applied, slot.lastStaleness[size_t(worker)]});
  const Packet packet = pull_->encode(slot.weights, slot.pullStates[0]);
  writer.putBytes(packet.bytes);
  return bytes;
}

void PsShard::reply(Transport& world, int worker, Slot& slot, ByteBuffer bytes) {
  if (bytes.empty()) {
    ByteWriter writer(bytes);
    writeReplyHeader(writer, {uint32_t(slot.partition), false, slot.applied, -1});
  }
  replies_.push_back({std::move(bytes), nullptr});
  InFlight& flight = replies_.back();
  flight.request = world.isend(worker, layout_.replyTag, flight.bytes);
}

void PsShard::reapReplies(bool all) {
  while (!replies_.empty() && (all || replies_.front().request->test())) {
    replies_.front().request->wait();
    replies_.pop_front();
  }
}

}  // namespace tetrad::ps
