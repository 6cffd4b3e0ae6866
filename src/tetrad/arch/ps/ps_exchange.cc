// Cost per iteration on W workers with K shards, model of n floats, b wire
// bytes per float pushed and pulled (4 without compression):
//   dedicated: each worker sends and receives n·b bytes, split over K
//     messages in parallel; each shard link carries W·n·b/K in and out:
//     T ≈ 2α + max(n·b, W·n·b/K)·β per push and per pull — the shard links
//     are the bottleneck unless K ≥ W.
//   colocated (K = W): each worker sends (W−1)/W·n·b and receives the same
//     as a shard and as a worker: 2(W−1)/W·n·b per direction over its link,
//     the bytes of ring all-reduce with 2 latency terms instead of 2(W−1).
#include "tetrad/arch/ps/ps_exchange.h"

#include <fmt/format.h>

#include <algorithm>

#include "tetrad/arch/ps/ps_layout.h"
#include "tetrad/arch/ps/ps_protocol.h"
#include "tetrad/arch/ps/ps_resize.h"
#include "tetrad/arch/ps/ps_shard.h"
#include "tetrad/arch/ps/ps_shard_image.h"
#include "tetrad/collectives/barrier.h"
#include "tetrad/collectives/call_check.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"

namespace tetrad {
namespace {

using ps::PsLayout;

constexpr uint64_t kCompressorSeedStream = 0x5000;

class PsExchange final : public Exchange {
 public:
  PsExchange(int shards, bool colocated, const ExchangeContext& context)
      : world_(*context.world),
        workers_(*context.workers),
        seed_(context.seed),
        push_(makeCompressor(context.compress)),
        pull_(makeCompressor(context.pullCompress)) {
    TETRAD_CHECK(world_.carriesPayload(), Unsupported,
                 "the parameter server needs messages with payloads (not payload-free mode)");
    layout_ = ps::makePsLayout(shards, colocated, context, spec());
    callCheckTag_ = context.tags->reserve(kCollectiveTagSpan, "parameter server call checks");
    const int rank = world_.rank();
    if (rank < layout_.workers) {
      for (int s = 0; s < kExchangeStreams; ++s) {
        for (const Partition& p : layout_.plan.partitions) {
          CompressorState state;
          const size_t id = size_t(&p - layout_.plan.partitions.data());
          state.seed = mixSeed(seed_, kCompressorSeedStream + (uint64_t(s) << 32) + id);
          state.rank = rank;
          states_[s].push_back(std::move(state));
        }
      }
    }
    const int shard = layout_.shardOf(rank);
    if (shard >= 0) shard_ = std::make_unique<ps::PsShard>(layout_, shard, seed_);
  }

  std::string spec() const override {
    return fmt::format("ps:{}{}", layout_.shards, layout_.colocated ? ":colocated" : "");
  }

  bool isServerRank() const override { return world_.rank() >= layout_.workers; }

  // Checkpoints (ps::WorkerState): push states, clock and the shards this worker
  // answers for (PsLayout::checkpointOwner), fetched at a quiescent cut: a barrier
  // (every worker done with its iteration, every shard with its round), the
  // fetch, a barrier (no worker pushes before every shard's state is taken).
  ByteBuffer saveState() override {
    const ByteBuffer states = saveCompressorStates(states_);
    ps::WorkerState saved{states, clock_, {}};
    barrier(workers_, CollectiveOptions{layout_.checkpointTag});
    const std::vector<int> owned = ownedShards();
    std::vector<ByteBuffer> messages(owned.size(),
                                     request(ps::RequestKind::kCheckpoint, 0, 0, 0, {}));
    std::vector<RequestPtr> sends;
    for (size_t i = 0; i < owned.size(); ++i) {
      sends.push_back(world_.isend(layout_.shardRank(owned[i]), layout_.requestTag, messages[i]));
    }
    const std::vector<ByteBuffer> shardStates = receiveShardReplies(owned);
    waitAll(sends);
    for (size_t i = 0; i < owned.size(); ++i) saved.shards.emplace_back(owned[i], shardStates[i]);
    ByteBuffer bytes = ps::writeWorkerState(saved);
    barrier(workers_, CollectiveOptions{layout_.checkpointTag + kCollectiveTagSpan});
    return bytes;
  }

  // Everything is read and checked before any shard is sent its state.
  void loadState(ConstBytes state) override {
    const std::string who = fmt::format("rank {}: {}", world_.rank(), spec());
    const ps::WorkerState saved = ps::readWorkerState(state, who);
    loadCompressorStates(saved.compressorStates, states_, who);
    const std::vector<int> owned = ownedShards();
    TETRAD_CHECK(saved.shards.size() == owned.size(), InvalidArgument,
                 "{}: the checkpoint holds the state of {} shards, this worker answers for {}", who,
                 saved.shards.size(), owned.size());
    std::vector<ConstBytes> states;
    for (size_t i = 0; i < owned.size(); ++i) {
      const auto& [shard, bytes] = saved.shards[i];
      TETRAD_CHECK(shard == owned[i], InvalidArgument,
                   "{}: the checkpoint holds shard {} where this worker answers for shard {}", who,
                   shard, owned[i]);
      states.push_back(bytes);
    }
    restoreShards(owned, states);
    clock_ = saved.clock;
  }

  // ps_resize.h: the old shards' images re-cut for this run's shards; push
  // states as the all-reduce keeps them (exchange.h).
  bool resizeReadsEveryWorker() const override { return true; }
  void loadResized(const ResizedState& state) override {
    const std::string who = fmt::format("rank {}: {}", world_.rank(), spec());
    const ps::WorkerState first = ps::readWorkerState(state.first, who);
    const ps::WorkerState own =
        state.own.empty() ? ps::WorkerState{} : ps::readWorkerState(state.own, who);
    loadResizedCompressorStates(own.compressorStates, first.compressorStates, states_,
                                world_.rank(), who);
    std::vector<ps::ShardImage> old;
    for (ConstBytes section : state.every) {
      for (const auto& [shard, bytes] : ps::readWorkerState(section, who).shards) {
        old.push_back(ps::readShardImage(bytes));
      }
    }
    const std::vector<int> owned = ownedShards();
    std::vector<ByteBuffer> images;
    for (int shard : owned) {
      images.push_back(
          ps::writeShardImage(ps::resizedShardImage(layout_, shard, old, state.oldWorkers)));
    }
    restoreShards(owned, std::vector<ConstBytes>(images.begin(), images.end()));
    clock_ = 0;
  }

  void serve(ServerBooks* books) override {
    TETRAD_CHECK(isServerRank() && shard_, InvalidArgument, "rank {} is not a server rank",
                 world_.rank());
    shard_->run(world_, books);
  }

  void start(std::span<const float> params) override {
    if (layout_.colocated && shard_) {
      task_ = world_.spawn(fmt::format("ps-shard-{}", layout_.shardOf(world_.rank())),
                           [this] { shard_->run(world_, nullptr); });
    }
    if (layout_.mode != ps::ShardMode::kWeights) return;
    if (world_.rank() == 0) {
      const CompressorPtr none = makeCompressor("none");
      std::vector<ByteBuffer> messages;
      std::vector<RequestPtr> sends;
      CompressorState scratch;
      messages.reserve(layout_.plan.partitions.size());
      for (size_t id = 0; id < layout_.plan.partitions.size(); ++id) {
        const Partition& p = layout_.plan.partitions[id];
        messages.push_back(request(ps::RequestKind::kInit, 0, id, 0,
                                   none->encode(params.subspan(p.offset, p.count), scratch)));
        sends.push_back(
            world_.isend(layout_.shardRank(p.shard), layout_.requestTag, messages.back()));
      }
      std::vector<size_t> ids(layout_.plan.partitions.size());
      for (size_t id = 0; id < ids.size(); ++id) ids[id] = id;
      receiveReplies(ids, [](size_t, const ByteBuffer&) {});  // acknowledgements
      waitAll(sends);
    }
    barrier(workers_, CollectiveOptions{layout_.barrierTag});
  }

  void average(ExchangeStream stream, size_t bucket, std::span<float> values) override {
    TETRAD_CHECK(layout_.mode == ps::ShardMode::kSum, InvalidArgument,
                 "--arch {}: average() in a push-pull run", spec());
    TETRAD_CHECK(bucket < layout_.plan.perBucket.size(), InvalidArgument,
                 "rank {}: average of bucket {} (plan: {} buckets)", world_.rank(), bucket,
                 layout_.plan.perBucket.size());
    // With --check-collectives the workers first agree on the call (a
    // worker pushing another bucket would otherwise leave every shard
    // waiting for the round it never completes, until the timeout).
    const CollectiveScope scope(
        workers_, {"exchange average", spec(), values.size(), push_->spec(),
                   int64_t(bucket) * kExchangeStreams + int64_t(stream), callCheckTag_});
    const std::vector<size_t>& ids = layout_.plan.perBucket[bucket];
    const size_t base = ids.empty() ? 0 : layout_.plan.partitions[ids.front()].offset;
    pushPartitions(
        stream, ids,
        [&](const Partition& p) {
          return std::span<const float>(values.subspan(p.offset - base, p.count));
        },
        0);
    receiveReplies(ids, [&](size_t id, const ByteBuffer& bytes) {
      const Partition& p = layout_.plan.partitions[id];
      decodeReply(bytes, values.subspan(p.offset - base, p.count));
    });
    waitAll(sends_);
    sends_.clear();
    finishReduction(values, ReduceOp::kAverage, layout_.workers);
  }

  PullResult pushPull(std::span<const float> update, std::span<float> params) override {
    TETRAD_CHECK(layout_.mode == ps::ShardMode::kWeights, InvalidArgument,
                 "--arch {}: pushPull() in a collective run", spec());
    std::vector<size_t> ids(layout_.plan.partitions.size());
    for (size_t id = 0; id < ids.size(); ++id) ids[id] = id;
    pushPartitions(
        ExchangeStream::kModelChange, ids,
        [&](const Partition& p) { return update.subspan(p.offset, p.count); }, clock_);
    PullResult result;
    receiveReplies(ids, [&](size_t id, const ByteBuffer& bytes) {
      const Partition& p = layout_.plan.partitions[id];
      ps::ReplyHeader header = decodeReply(bytes, params.subspan(p.offset, p.count));
      if (id == 0) result = {header.updatesApplied, header.stop, header.staleness};
    });
    waitAll(sends_);
    sends_.clear();
    ++clock_;
    return result;
  }

  void finish() override {
    if (!finished_) {
      finished_ = true;
      std::vector<ByteBuffer> messages;
      std::vector<RequestPtr> sends;
      messages.reserve(size_t(layout_.shards));
      for (int s = 0; s < layout_.shards; ++s) {
        messages.push_back(request(ps::RequestKind::kDone, 0, 0, clock_, {}));
        sends.push_back(world_.isend(layout_.shardRank(s), layout_.requestTag, messages.back()));
      }
      waitAll(sends);
    }
    if (task_) {
      TaskPtr task = std::move(task_);
      task->join();
    }
  }

  ExchangeStats stats() const override { return shard_ ? shard_->stats() : ExchangeStats{}; }

 private:
  ByteBuffer request(ps::RequestKind kind, int stream, size_t partition, int64_t clock,
                     const Packet& packet) {
    ByteBuffer bytes;
    ByteWriter writer(bytes);
    ps::writeRequestHeader(writer, {kind, uint8_t(stream), uint32_t(partition), clock});
    writer.putBytes(packet.bytes);
    return bytes;
  }

  template <typename PieceOf>
  void pushPartitions(ExchangeStream stream, const std::vector<size_t>& ids, PieceOf pieceOf,
                      int64_t clock) {
    messages_.clear();
    messages_.reserve(ids.size());
    for (size_t id : ids) {
      const Partition& p = layout_.plan.partitions[id];
      const Packet packet = push_->encode(pieceOf(p), states_[int(stream)][id]);
      messages_.push_back(request(ps::RequestKind::kPush, int(stream), id, clock, packet));
      sends_.push_back(
          world_.isend(layout_.shardRank(p.shard), layout_.requestTag, messages_.back()));
    }
  }

  // The replies for partitions `ids`, in the order the shards answer: one
  // receive is posted for every shard at once (recvAny on the reply tag), so
  // all shards stream their replies together; onReply(id, bytes) for each.
  template <typename OnReply>
  void receiveReplies(const std::vector<size_t>& ids, OnReply onReply) {
    awaited_.assign(layout_.plan.partitions.size(), false);
    for (size_t id : ids) awaited_[id] = true;
    for (size_t left = ids.size(); left > 0; --left) {
      Message message;
      try {
        message = world_.recvAny(layout_.replyTag);
      } catch (const TimeoutError& error) {
        TETRAD_FAIL(TimeoutError, "{} (waiting for parameter server {})", error.what(),
                    silentShards());
      }
      ByteReader reader(message.bytes);
      const ps::ReplyHeader header = ps::readReplyHeader(reader);
      const size_t id = header.partition;
      TETRAD_CHECK(id < awaited_.size() && awaited_[id] &&
                       layout_.shardRank(layout_.plan.partitions[id].shard) == message.source,
                   ProtocolError,
                   "rank {}: rank {} replied for partition {}, which it does not hold or which "
                   "was not awaited",
                   world_.rank(), message.source, id);
      awaited_[id] = false;
      onReply(id, message.bytes);
    }
  }

  // Sends each shard of `owned` its state (kRestore); waits for every reply.
  void restoreShards(const std::vector<int>& owned, const std::vector<ConstBytes>& states) {
    std::vector<ByteBuffer> messages;
    for (const ConstBytes& state : states) {
      ByteBuffer message = request(ps::RequestKind::kRestore, 0, 0, 0, {});
      message.insert(message.end(), state.begin(), state.end());
      messages.push_back(std::move(message));
    }
    std::vector<RequestPtr> sends;
    for (size_t i = 0; i < owned.size(); ++i) {
      sends.push_back(world_.isend(layout_.shardRank(owned[i]), layout_.requestTag, messages[i]));
    }
    receiveShardReplies(owned);  // acknowledgements
    waitAll(sends);
  }

  // The shards whose state this worker takes into its checkpoints.
  std::vector<int> ownedShards() const {
    std::vector<int> owned;
    for (int s = 0; s < layout_.shards; ++s) {
      if (layout_.checkpointOwner(s) == world_.rank()) owned.push_back(s);
    }
    return owned;
  }

  // One reply from each shard of `shards` (a checkpoint's state or a
  // restore's acknowledgement), in the order of `shards`.
  std::vector<ByteBuffer> receiveShardReplies(const std::vector<int>& shards) {
    std::vector<ByteBuffer> payloads(shards.size());
    std::vector<bool> awaited(shards.size(), true);
    for (size_t left = shards.size(); left > 0; --left) {
      Message message;
      try {
        message = world_.recvAny(layout_.replyTag);
      } catch (const TimeoutError& error) {
        std::string silent;
        for (size_t i = 0; i < shards.size(); ++i) {
          if (!awaited[i]) continue;
          silent += fmt::format("{}rank {} (shard {})", silent.empty() ? "" : ", ",
                                layout_.shardRank(shards[i]), shards[i]);
        }
        TETRAD_FAIL(TimeoutError, "{} (waiting for the checkpoint state of parameter server {})",
                    error.what(), silent);
      }
      ByteReader reader(message.bytes);
      const ps::ReplyHeader header = ps::readReplyHeader(reader);
      const auto found = std::find(shards.begin(), shards.end(), int(header.partition));
      const size_t i = size_t(found - shards.begin());
      TETRAD_CHECK(found != shards.end() && awaited[i] &&
                       layout_.shardRank(int(header.partition)) == message.source,
                   ProtocolError,
                   "rank {}: rank {} sent checkpoint state of shard {}, which was not awaited",
                   world_.rank(), message.source, header.partition);
      awaited[i] = false;
      const ConstBytes payload = reader.getBytes(reader.remaining(), "shard state");
      payloads[i].assign(payload.begin(), payload.end());
    }
    return payloads;
  }

  // "rank 5 (shard 1), ..." for the shards whose replies are still awaited.
  std::string silentShards() const {
    std::vector<bool> silent(size_t(layout_.shards), false);
    for (size_t id = 0; id < awaited_.size(); ++id) {
      if (awaited_[id]) silent[size_t(layout_.plan.partitions[id].shard)] = true;
    }
    std::string text;
    for (int s = 0; s < layout_.shards; ++s) {
      if (!silent[size_t(s)]) continue;
      text +=
          fmt::format("{}rank {} (shard {})", text.empty() ? "" : ", ", layout_.shardRank(s), s);
    }
    return text;
  }

  ps::ReplyHeader decodeReply(const ByteBuffer& bytes, std::span<float> out) {
    ByteReader reader(bytes);
    ps::ReplyHeader header = ps::readReplyHeader(reader);
    std::fill(out.begin(), out.end(), 0.0f);
    pull_->decodeAdd(reader.getBytes(reader.remaining(), "reply payload"), out);
    return header;
  }

  Transport& world_;
  Transport& workers_;
  uint64_t seed_;
  CompressorPtr push_, pull_;
  PsLayout layout_;
  std::vector<CompressorState> states_[kExchangeStreams];

  std::unique_ptr<ps::PsShard> shard_;
  TaskPtr task_;
  std::vector<ByteBuffer> messages_;
  std::vector<bool> awaited_;
  std::vector<RequestPtr> sends_;
  int64_t clock_ = 0;
  Tag callCheckTag_ = 0;
  bool finished_ = false;
};

}  // namespace

ExchangePtr makePsExchange(int shards, bool colocated, const ExchangeContext& context) {
  return std::make_unique<PsExchange>(shards, colocated, context);
}

}  // namespace tetrad
