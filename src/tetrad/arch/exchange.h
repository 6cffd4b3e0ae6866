// Exchange: *who* exchanges with whom — the "arch" dimension of the taxonomy
// (allreduce:ALGO, ps[:K][:colocated]; gossip plugs in here too).
//
// An Exchange moves spans of floats between the workers of a run, through
// the run's compressor. The worker loop (train/) calls it on the buckets of
// its flat buffers (sched/bucketing.h); nothing here knows LibTorch.
//
//   average(stream, bucket, values)  collective: every worker calls it for
//       the same bucket; on return `values` holds the mean over workers of
//       every worker's (compressed) values. Used for gradients (BSP) and for
//       model changes (Local SGD). Each stream keeps its own compressor
//       state per bucket (error-feedback residuals of gradients and of model
//       changes never mix).
//   pushPull(update, params)  push-pull (ssp/asp): push this worker's model
//       change, receive the latest weights; only architectures with servers.
//   mixModels(params, step)  decentralized (gossip): replace the parameters
//       by a weighted average with the neighbours' (D-PSGD) or take one
//       compressed consensus step (CHOCO-SGD); mixesModels() is true and the
//       worker loop mixes models where other architectures average
//       gradients or model changes.
//
// Roles: ranks 0..W-1 are workers. Architectures with dedicated servers own
// the ranks W.. of the world: those ranks call serve() instead of training.
// Colocated servers run as tasks inside worker ranks (Transport::spawn),
// started by start() and joined by finish().
//
// Every rank builds its Exchange with the same context in the same order,
// so that tags (transport/tag_space.h) match everywhere.
//
// Thread-safety: one Exchange per rank, called by that rank's worker (or, on
// a server rank, by its main function); servers run in their own tasks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/guard_rider.h"
#include "tetrad/sched/bucketing.h"
#include "tetrad/sync/sync_policy.h"
#include "tetrad/transport/tag_space.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

// What an exchange moves: each stream has its own compressor states.
enum class ExchangeStream { kGradients = 0, kModelChange = 1 };
constexpr int kExchangeStreams = 2;

struct ExchangeContext {
  Transport* world = nullptr;    // every rank of the run (servers included)
  Transport* workers = nullptr;  // ranks 0..W-1 only (== world without dedicated servers)
  int workerCount = 0;           // W
  TagSpace* tags = nullptr;
  // allreduce:auto's choice per message (allreduce_auto.h), built by the
  // run from its network; owned by the caller, outlives the exchange.
  const AllreduceSelector* allreduceSelector = nullptr;
  // Where this rank's compressor work is charged (compress/codec_clock.h);
  // null: nowhere. Owned by the caller, outlives the exchange.
  CodecClock* codec = nullptr;
  std::string compress = "none";      // compressor of what workers send
  std::string pullCompress = "none";  // parameter server: compressor of the replies
  std::vector<ParameterSlot> slots;   // the tensors of the flat buffers, in order
  std::vector<BucketRange> buckets;   // the bucket plan of the flat buffers
  const SyncPolicy* sync = nullptr;
  uint64_t partitionBytes = 4ull << 20;  // parameter server: largest partition
  uint64_t seed = 1;
  // Push-pull: the servers stop the run once they have applied this many
  // updates (iterations × W); 0 when the sync policy is collective.
  int64_t updateLimit = 0;
  // Gossip: the topology spec (ring, torus:RxC, ...) and "dpsgd" or
  // "choco:GAMMA".
  std::string topology;
  std::string gossip = "dpsgd";
};

// Reply of one push-pull step.
struct PullResult {
  int64_t updatesApplied = 0;  // by the servers so far (all workers together)
  bool stop = false;           // the run's update limit is reached
  int64_t staleness = -1;      // of the update just pushed (clocks), -1: unknown
};

// A dedicated server rank's own books (the training layer's meter of that
// rank), kept in its shard's checkpoint so that a resumed server's totals
// continue where they stopped. serve() takes them; the server task alone
// calls them, between requests.
class ServerBooks {
 public:
  virtual ~ServerBooks() = default;
  // Leaves `sent` and `received` bytes of checkpoint traffic out of the totals.
  virtual void excludeTraffic(uint64_t sent, uint64_t received) = 0;
  virtual ByteBuffer save() const = 0;
  virtual void load(ConstBytes state) = 0;
};

// What the servers saw, for summary.json.
struct ExchangeStats {
  // Staleness of every applied update (push-pull): count per staleness.
  std::map<int64_t, int64_t> stalenessHistogram;
  int64_t updatesApplied = 0;
};

// What an elastic resize hands an exchange (Exchange::loadResized).
struct ResizedState {
  int oldWorkers = 0;
  ConstBytes own;    // this worker's saveState() there; empty for an added worker
  ConstBytes first;  // worker 0's
  // Every old worker's, by rank (empty unless resizeReadsEveryWorker()).
  std::vector<ConstBytes> every;
  // This worker's parameters as resumed (its own, or worker 0's when added).
  std::span<const float> params;
};

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual std::string spec() const = 0;

  // Workers, once before training, with identical `params` on every worker:
  // starts colocated servers and seeds servers that hold the weights.
  virtual void start(std::span<const float> params) {}
  // The non-finite guard's word (compress/guard_rider.h) rides on the
  // gradient stream of this iteration: every kGradients bucket averaged from
  // now on is scanned before it is encoded, and the iteration's last one
  // carries the word. `withStopRequests`: the word may also be a stop request
  // (runs that checkpoint). False (nothing armed) where this exchange cannot
  // carry it; the guard then runs its own round.
  virtual bool armRider(GuardRider* rider, bool withStopRequests) { return false; }
  // Collective mean over workers; see the header comment.
  virtual void average(ExchangeStream stream, size_t bucket, std::span<float> values) = 0;
  // Push-pull step; see the header comment. Default: Unsupported.
  virtual PullResult pushPull(std::span<const float> update, std::span<float> params);
  // Gossip; see the header comment. Default: Unsupported.
  virtual bool mixesModels() const { return false; }
  virtual void mixModels(std::span<float> params, int64_t step);
  // Workers, once after training: releases the servers and joins colocated
  // ones (rethrowing their errors).
  virtual void finish() {}

  // Dedicated server ranks: serves until every worker has finished;
  // `books` (may be null) travel with the shard's checkpoints.
  virtual void serve(ServerBooks* books);
  // True on ranks that serve instead of training.
  virtual bool isServerRank() const { return false; }

  // This rank's server statistics (empty on ranks without a server).
  virtual ExchangeStats stats() const { return {}; }

  // Checkpoints (train/checkpoint/checkpoint_store.h): collective over the workers, at
  // a quiescent cut — every worker between two iterations (or local steps),
  // none with an exchange in flight. saveState() returns the state that
  // decides this worker's future exchanges as bytes: compressor states per
  // stream and unit, CHOCO's public copies, and the state of the servers or
  // passive tasks this worker answers for (a parameter-server shard's
  // weights, clocks and pull-compressor states, fetched over the transport;
  // AD-PSGD's served model and step counter). It may exchange messages and
  // barriers among the workers, so that no worker moves on before every
  // server's state is taken. loadState() takes what saveState() of the same
  // architecture, plan and worker wrote and hands the servers their part
  // back before returning; ProtocolError or InvalidArgument otherwise.
  // Default: Unsupported naming the architecture.
  virtual ByteBuffer saveState();
  virtual void loadState(ConstBytes state);
  // An elastic resize (docs/reliability.md): the checkpoint was written by
  // state.oldWorkers workers and this run has another count; collective over
  // the workers like loadState(), and before any worker steps. Default: the
  // exchange keeps the state it was built with, so nothing is carried
  // (gossip's public copies start afresh).
  virtual void loadResized(const ResizedState& state) {}
  // True when loadResized() needs every old worker's state (ResizedState::every).
  virtual bool resizeReadsEveryWorker() const { return false; }
};

// Helpers for saveState()/loadState(): every stream's compressor states,
// one per unit (bucket or partition), each as CompressorState::serialize().
ByteBuffer saveCompressorStates(std::span<const std::vector<CompressorState>> streams);
// Replaces the states of `streams`; the counts must match (InvalidArgument
// naming `who` otherwise).
void loadCompressorStates(ConstBytes bytes, std::span<std::vector<CompressorState>> streams,
                          std::string_view who);

// loadResized() of an exchange whose state is its compressor states: a
// worker the old run had keeps its own; an added worker takes worker 0's,
// adopted (CompressorState::adoptForRank): the lost workers' residuals are
// dropped, the added ones start from zero.
void loadResizedCompressorStates(ConstBytes own, ConstBytes first,
                                 std::span<std::vector<CompressorState>> streams, int rank,
                                 std::string_view who);

// An update count of a push-pull run of `oldWorkers` workers (W updates per
// global iteration) rebased to `workers`: c·W'/W, rounded down, so that the
// global iteration c/W is kept exactly.
int64_t rebaseUpdates(int64_t count, int oldWorkers, int workers);

using ExchangePtr = std::unique_ptr<Exchange>;

}  // namespace tetrad
