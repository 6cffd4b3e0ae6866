// Transport: the only way a rank talks to other ranks.
//
// A Transport is one rank's endpoint in a world of `size()` ranks. Everything
// above this layer (collectives, compressors' aggregation protocols, parameter
// servers, gossip, the trainer) is written once against this interface and
// runs unchanged on both engines:
//   - transport/mpi: Open MPI, one process per rank, wall-clock time;
//   - transport/sim: SimGrid S4U, every rank an actor in one process, with
//     simulated time decided by SimGrid's network model.
//
// Messages are tagged byte strings. Between one pair of ranks, messages with
// the same tag arrive in the order they were sent. Every wait has a timeout
// (`timeout()`, seconds of the engine's clock); a dead or silent peer becomes
// a TimeoutError or TransportError that names the rank — never a hang.
//
// Payload-free mode (`carriesPayload() == false`, simulation only): messages
// carry their size but no bytes, so that collectives on hundreds of ranks
// and large messages can be simulated cheaply. Receives then leave the
// destination buffer untouched; code that computes on received data must
// skip the computation (see collectives/reduce_ops.h).
//
// Messages to self: a rank may send to itself (a worker and the parameter-
// server shard colocated in its process). They are delivered like any other
// message — under MPI through Open MPI's self path, under SimGrid over the
// host's loopback link (shared memory, not the network) — and are not
// network traffic, so the counters below leave them out.
//
// Traffic accounting: every send counts its payload size (exactly the bytes
// given to send/isend) towards the destination peer; every completed receive
// counts towards the source. Engines add no per-message bytes of their own to
// these counters.
//
// Ownership and threads: a Transport belongs to its rank's worker. Under MPI
// it may be used from the worker thread and from tasks started with spawn()
// (MPI is initialised with MPI_THREAD_MULTIPLE); under SimGrid, only from
// the rank's actors. Never block a SimGrid actor on a std:: mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tetrad/core/bytes.h"

namespace tetrad {

class Diagnostics;  // transport/diagnostics.h
using Tag = uint32_t;

// Tags at or above this value are reserved for the engines themselves.
constexpr Tag kMaxUserTag = 1u << 30;

// A pending non-blocking operation.
class Request {
 public:
  virtual ~Request() = default;
  // Blocks until done; throws TimeoutError after the transport's timeout.
  virtual void wait() = 0;
  // True when done (never blocks).
  virtual bool test() = 0;
};
using RequestPtr = std::unique_ptr<Request>;

// Waits for all requests, in order.
void waitAll(std::vector<RequestPtr>& requests);

// A concurrent activity inside one rank (an actor under SimGrid, a
// std::thread under MPI). An exception thrown by the body is captured and
// rethrown by join().
class Task {
 public:
  virtual ~Task() = default;
  virtual void join() = 0;
};
using TaskPtr = std::unique_ptr<Task>;

// A message received from any source.
struct Message {
  int source = -1;
  ByteBuffer bytes;
};

// A queue of integers between the activities of one rank (its worker and
// the tasks it spawned): the engine-neutral way for them to hand work to each
// other (the scheduler's communication task takes ready buckets from one).
// std::mutex and std::condition_variable under MPI; a SimGrid semaphore
// under SimGrid, where no actor may block on a std:: primitive. Pushing and
// popping take no simulated time.
class LocalQueue {
 public:
  virtual ~LocalQueue() = default;
  // Never blocks.
  virtual void push(int64_t value) = 0;
  // Blocks until a value is there (first in, first out); throws TimeoutError
  // naming the rank and the queue after the transport's timeout.
  virtual int64_t pop() = 0;
};
using LocalQueuePtr = std::unique_ptr<LocalQueue>;

enum class ReduceOp { kSum, kAverage };

// Per-peer traffic counters of one rank. Updated atomically (a comm thread and
// the worker may both send). Storage grows with the peers a rank talks to,
// not with the world: counters live in blocks of 64 peers allocated on first
// use, so 10,000 simulated ranks that each talk to a few peers need a few
// kilobytes each, not 10,000 counters each.
class TrafficCounters {
 public:
  // Messages to or from `self` (this rank) are not counted.
  TrafficCounters(int worldSize, int self);
  ~TrafficCounters();
  TrafficCounters(const TrafficCounters&) = delete;
  TrafficCounters& operator=(const TrafficCounters&) = delete;
  void countSent(int peer, uint64_t bytes) { countSent(peer, bytes, 1); }
  void countReceived(int peer, uint64_t bytes) { countReceived(peer, bytes, 1); }
  // `messages` messages of `bytes` bytes in all (the analytic engine counts
  // a collective's traffic to one peer at once).
  void countSent(int peer, uint64_t bytes, uint64_t messages);
  void countReceived(int peer, uint64_t bytes, uint64_t messages);
  uint64_t bytesSentTo(int peer) const;
  uint64_t bytesReceivedFrom(int peer) const;
  uint64_t messagesSentTo(int peer) const;
  uint64_t messagesReceivedFrom(int peer) const;
  uint64_t totalBytesSent() const;
  uint64_t totalBytesReceived() const;
  uint64_t totalMessagesSent() const;
  uint64_t totalMessagesReceived() const;
  void reset();

 private:
  struct PerPeer {
    std::atomic<uint64_t> bytesSent{0}, bytesReceived{0}, messagesSent{0}, messagesReceived{0};
  };
  static constexpr int kBlockPeers = 64;
  // The counters of `peer`, allocating its block on first use.
  PerPeer& counters(int peer);
  // The counters of `peer`, or nullptr when its block was never used.
  const PerPeer* find(int peer) const;
  template <typename Field>
  uint64_t sum(Field field) const;

  int self_;
  std::vector<std::atomic<PerPeer*>> blocks_;
};

class AnalyticNetwork;  // transport/analytic_network.h

class Transport {
 public:
  Transport(int rank, int size, double timeoutSeconds);
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Blocking send; returns when `data` may be reused.
  virtual void send(int peer, Tag tag, ConstBytes data) = 0;
  // Blocking receive of exactly data.size() bytes. A message of any other size
  // throws ProtocolError naming the peer, the tag and both sizes.
  virtual void recv(int peer, Tag tag, MutableBytes data) = 0;
  // Blocking receive of a message whose size the receiver does not know.
  virtual ByteBuffer recvMessage(int peer, Tag tag) = 0;
  // Blocking receive from whichever rank sends first with `tag` (servers).
  // A tag used with recvAny at a rank must only be received with recvAny there.
  virtual Message recvAny(Tag tag) = 0;

  // Non-blocking variants; the span must stay valid until the request is done.
  virtual RequestPtr isend(int peer, Tag tag, ConstBytes data) = 0;
  virtual RequestPtr irecv(int peer, Tag tag, MutableBytes data) = 0;
  // A receive of exactly staging.size() bytes whose bytes are handed to
  // `consume` instead of being left in a buffer: the collectives' fused
  // receive-and-add. `consume` runs once, inside the request's wait() or
  // test() on the caller's thread, with a view valid only during the call.
  // By default the bytes are received into `staging` (kept valid until the
  // request is done) and passed on; the simulator passes the sender's own
  // bytes and skips that copy. Size mismatches throw as irecv's do; in
  // payload-free mode `consume` is not called.
  using ConsumeBytes = std::function<void(ConstBytes)>;
  virtual RequestPtr irecvConsume(int peer, Tag tag, MutableBytes staging, ConsumeBytes consume);

  // Seconds on this engine's clock: wall time (MPI) or simulated time (SimGrid).
  virtual double now() const = 0;
  // Accounts `seconds` of local computation: advances the simulated clock of
  // this rank (SimGrid); does nothing under MPI, where computing takes real time.
  virtual void compute(double seconds) = 0;
  // Sleeps on the engine's clock.
  virtual void sleepFor(double seconds) = 0;
  // Lets the other ranks of a simulation that can run at the current
  // simulated time run before this one goes on (SimGrid's yield); the clock
  // does not move. Used while a rank waits for work it handed to a thread
  // outside the simulation (train/compute/compute_pool.h). A no-op where ranks run
  // on their own (MPI).
  virtual void yieldToPeers() {}

  // Starts `body` concurrently within this rank.
  virtual TaskPtr spawn(std::string name, std::function<void()> body) = 0;
  // A queue between this rank's activities; `name` appears in errors.
  virtual LocalQueuePtr makeQueue(std::string name) = 0;

  // False in the simulator's payload-free mode (see above).
  virtual bool carriesPayload() const { return true; }
  // "mpi" or "sim": for messages and records. Code that depends on the
  // clock asks simulatedClock().
  virtual std::string engine() const = 0;
  // True when now() is a simulated clock that only compute(), sleepFor() and
  // messages move (SimGrid): computing takes no time on it until charged.
  // False where now() is wall time (MPI).
  virtual bool simulatedClock() const { return false; }
  // Ranks that share a node (a fast local interconnect), as consecutive rank
  // ids: ranks r and r' are on one node iff r / ranksPerNode() equals
  // r' / ranksPerNode(). Used by hierarchical collectives. 1 when flat.
  virtual int ranksPerNode() const { return 1; }

  // The engine's own all-reduce (MPI_Allreduce), the baseline a user would
  // otherwise pick. Throws Unsupported on engines that have none.
  virtual void nativeAllreduce(std::span<float> data, ReduceOp op);

  // The analytic engine (transport/analytic_network.h): non-null when this
  // engine evaluates collectives in closed form instead of sending their
  // messages (simulated timing-only runs with --engine analytic). Views of
  // a transport return their parent's.
  virtual AnalyticNetwork* analytic() { return nullptr; }
  // Counts traffic that was not sent through this transport's send calls
  // (a collective the analytic engine evaluated): on this transport's
  // counters and, for a view, on its parent's too.
  virtual void countTraffic(int peer, uint64_t bytesSent, uint64_t messagesSent,
                            uint64_t bytesReceived, uint64_t messagesReceived);

  double timeout() const { return timeoutSeconds_; }
  void setTimeout(double seconds) { timeoutSeconds_ = seconds; }

  TrafficCounters& traffic() { return traffic_; }
  const TrafficCounters& traffic() const { return traffic_; }

  // Activity labels, stall threshold and collective checks of this rank
  // (transport/diagnostics.h); views of a transport share their parent's.
  Diagnostics& diagnostics() const { return *diagnostics_; }
  void shareDiagnostics(const Transport& parent) { diagnostics_ = parent.diagnostics_; }

  // Convenience: typed spans.
  template <typename T>
  void sendValues(int peer, Tag tag, std::span<const T> values) {
    send(peer, tag, std::as_bytes(values));
  }
  template <typename T>
  void recvValues(int peer, Tag tag, std::span<T> values) {
    recv(peer, tag, std::as_writable_bytes(values));
  }

 protected:
  // Throws InvalidArgument unless 0 <= peer < size().
  void checkPeer(int peer, const char* operation) const;
  void checkTag(Tag tag, const char* operation) const;

 private:
  int rank_;
  int size_;
  double timeoutSeconds_;
  TrafficCounters traffic_;
  std::shared_ptr<Diagnostics> diagnostics_;
};

}  // namespace tetrad
