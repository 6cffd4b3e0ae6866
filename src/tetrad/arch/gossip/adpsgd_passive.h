// AD-PSGD's passive side (internal to arch/gossip; see adpsgd_exchange.h):
// the model a worker shows its neighbours while it computes, and the task
// that answers their averaging requests.
//
// SharedModel holds two vectors next to the worker's parameters x:
//   served   what this worker answers with: x as of its last step boundary,
//            plus every pairwise average made since (by either side);
//   pending  the part of `served` the worker has not absorbed yet: the
//            changes made by requests served since the last boundary.
// Invariant: served = x_boundary + (own averages) + pending, so at its next
// boundary the worker adds `pending` to x (keeping its own gradient step
// taken meanwhile) and publishes a fresh `served` = x. The worker thread is
// the only one that touches x (the LibTorch parameter memory); the passive
// task touches `served` and `pending` only, under one mutex whose critical
// sections are pure arithmetic and never call the transport. Under MPI that
// serialises a real thread against the worker; under SimGrid, where the
// actors of the run take turns only at transport calls, the mutex is never
// contended, so it never blocks an actor.
//
// A pairwise average of x_a (the requester, blocked until the reply) and
// s = served (the responder) gives both sides the same change with opposite
// signs: d = (x_a − s)/2 is added to served and pending here and −d to x_a
// there, so Σ_i x_i changes only by gradient steps (exact in float: 0.5·(u−v)
// is −0.5·(v−u)).
//
// PassiveServer runs the loop of the passive task (Transport::spawn): it
// takes requests with recvAny on the request tag — averages from the
// neighbours, and on rank 0 the step counter's ticks — and ends when every
// rank that may send to it has sent kDone. It never waits for its own worker,
// so no cycle of waits exists (docs/gossip.md).
//
// Thread-safety: SharedModel's methods lock; PassiveServer::run() belongs to
// the passive task, stats()/count() may be read after it is joined.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "tetrad/arch/gossip/topology.h"
#include "tetrad/core/bytes.h"
#include "tetrad/transport/transport.h"

namespace tetrad::adpsgd {

// Request kinds (first byte of a request; then an int64 field, then floats).
enum class Kind : uint8_t { kAverage = 1, kTick = 2, kDone = 3 };

struct Tags {
  Tag request = 0;       // recvAny at the passive task
  Tag averageReply = 0;  // partner -> requester: int64 clock + n floats
  Tag tickReply = 0;     // rank 0 -> worker: int64 count + uint8 stop
};

constexpr size_t kTickReplyBytes = sizeof(int64_t) + sizeof(uint8_t);
constexpr size_t kHeaderBytes = sizeof(uint8_t) + sizeof(int64_t);

// Writes a request header (kind, field) into out[0, kHeaderBytes).
void writeHeader(std::span<std::byte> out, Kind kind, int64_t field);

class SharedModel {
 public:
  explicit SharedModel(std::span<const float> initial);

  // Worker, at a step boundary: x += pending, pending = 0, served = x; the
  // snapshot is stamped with the step counter's `clock`.
  void boundary(std::span<float> x, int64_t clock);
  // Worker, after its own request (x as it still is) was answered with the
  // partner's `theirs`: x and served move by (theirs − x)/2.
  void absorbReply(std::span<float> x, std::span<const float> theirs);
  // Passive task: writes the clock and `served` into `reply` (8 + 4n bytes),
  // then averages `served` with `incoming` (moving pending the same way).
  void serve(std::span<const float> incoming, std::span<std::byte> reply);
  size_t size() const { return served_.size(); }
  // Checkpoints, at a quiescent cut (no request in service): `served`,
  // `pending` and the clock. load() throws ProtocolError on a state of
  // another size and then changes nothing.
  void save(ByteWriter& out) const;
  void load(ByteReader& in);
  // An elastic resize, at the same cut: the stamp rebased to the new worker
  // count, or (an added worker) a fresh start at `x`: served = x, pending = 0.
  int64_t clock() const;
  void setClock(int64_t clock);
  void restart(std::span<const float> x, int64_t clock);

 private:
  mutable std::mutex mutex_;
  std::vector<float> served_, pending_;
  int64_t clock_ = 0;
};

struct PassiveOptions {
  Tags tags;
  int workers = 0;
  int64_t updateLimit = 0;   // rank 0's counter: stop once this many ticks arrived
  std::vector<int> senders;  // ranks that send averages here (union of neighbours)
};

class PassiveServer {
 public:
  PassiveServer(SharedModel& model, PassiveOptions options, int rank);

  // Serves until every expected sender is done; errors name this rank.
  void run(Transport& transport);
  int64_t count() const { return count_.load(); }  // rank 0: ticks counted
  // A resumed run's rank 0, before any tick: the count at the checkpoint.
  void restoreCount(int64_t count) { count_.store(count); }

 private:
  void onRequest(Transport& transport, const Message& message);
  void reply(Transport& transport, int peer, Tag tag, ByteBuffer bytes);
  void reap(bool all);
  std::string awaited() const;

  SharedModel& model_;
  PassiveOptions options_;
  int rank_;
  std::vector<bool> mayAverage_;  // per rank: a neighbour
  std::vector<bool> expectDone_, done_;
  int doneLeft_ = 0;
  std::atomic<int64_t> count_{0};  // read by the worker at checkpoints
  std::vector<float> incoming_;    // the requester's model, aligned
  struct InFlight {
    ByteBuffer bytes;
    RequestPtr request;
  };
  std::deque<InFlight> replies_;
};

}  // namespace tetrad::adpsgd
