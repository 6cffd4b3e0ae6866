// SimTransport: one rank's Transport on a simulated cluster (SimGrid S4U).
//
// Every rank is an actor on its own simulated host; runSimulation
// (run_simulation.cc) creates the actors and one SimTransport per rank.
//
// Wire: a message from rank s to rank d with tag t goes through the mailbox
// "s>d:t", so messages of one (pair, tag) arrive in order. Its simulated size
// is exactly its payload size, and its bytes are copied into a heap message
// (SimWorld), so the sender's buffer is free as soon as send() is posted.
// A blocking send() returns when the transfer has completed (like an MPI
// rendezvous send): the sender's clock includes the transfer time, and a
// pattern that needs buffering to make progress (everyone sends first, then
// receives) ends in a TimeoutError here as it would hang under MPI — use
// isend/irecv for such exchanges.
//
// recvAny(tag) keeps, per tag, one posted receive on each source's mailbox
// and waits for whichever completes first (hence the rule of transport.h: a
// tag received with recvAny must only be received with recvAny). These
// receives may complete before recvAny is called, like an MPI eager buffer.
// One actor of the rank at a time may call recvAny for a given tag. When the
// rank's worker returns, those posted receives are cancelled.
//
// Payload-free mode: messages carry only their size. recv/irecv leave the
// destination untouched (the size is still checked); recvMessage and recvAny
// return a zero-filled buffer of the message's size.
//
// Time: now() is simulated seconds since the start of the run; compute() and
// sleepFor() advance the calling actor's clock; every wait times out after
// timeout() simulated seconds with a TimeoutError naming rank, peer and tag.
//
// Threads: only from this rank's actors (its worker and spawned tasks).
#pragma once

#include <simgrid/forward.h>

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tetrad/transport/sim/sim_world.h"
#include "tetrad/transport/transport.h"

namespace tetrad::sim {

class SimTransport final : public Transport {
 public:
  SimTransport(SimWorld& world, int rank, int size, double timeoutSeconds);
  ~SimTransport() override;

  void send(int peer, Tag tag, ConstBytes data) override;
  void recv(int peer, Tag tag, MutableBytes data) override;
  ByteBuffer recvMessage(int peer, Tag tag) override;
  Message recvAny(Tag tag) override;
  RequestPtr isend(int peer, Tag tag, ConstBytes data) override;
  RequestPtr irecv(int peer, Tag tag, MutableBytes data) override;
  // The sender's bytes go to `consume` straight from its buffer (or from the
  // message's own copy if the sender has moved on): no copy into `staging`.
  RequestPtr irecvConsume(int peer, Tag tag, MutableBytes staging, ConsumeBytes consume) override;

  double now() const override;
  void compute(double seconds) override;
  void sleepFor(double seconds) override;
  void yieldToPeers() override;
  TaskPtr spawn(std::string name, std::function<void()> body) override;
  LocalQueuePtr makeQueue(std::string name) override;

  bool carriesPayload() const override { return !world_.payloadFree(); }
  std::string engine() const override { return "sim"; }
  bool simulatedClock() const override { return true; }
  int ranksPerNode() const override { return world_.ranksPerNode(); }
  AnalyticNetwork* analytic() override { return world_.analytic(); }

  // Called by the rank's actor when its worker has returned: cancels the
  // receives recvAny keeps posted. Must run inside an actor.
  void closeAnyReceives();

  // For the run and the requests (internal).
  SimWorld& world() { return world_; }
  simgrid::s4u::Mailbox* outbox(int peer, Tag tag);
  simgrid::s4u::Mailbox* inbox(int peer, Tag tag);
  // Waits for `comm` for timeout() simulated seconds, turning SimGrid's
  // failures into tetrad errors that name `what`, the peer and the tag.
  void waitComm(const simgrid::s4u::CommPtr& comm, const char* what, int peer, Tag tag);
  // Checks, counts and releases a received message, handing its bytes to
  // `consume` first (not when payload-free); throws ProtocolError on a size
  // mismatch.
  void consumeMessage(SimMessage* message, int peer, Tag tag, size_t expected,
                      const ConsumeBytes& consume);
  // consumeMessage copying the bytes into `data`.
  void deliver(SimMessage* message, int peer, Tag tag, MutableBytes data);
  // Counts and releases a received message, returning its bytes.
  ByteBuffer take(SimMessage* message, int peer);

 private:
  // recvAny state of one tag: a posted receive per source rank.
  struct AnySource {
    std::vector<simgrid::s4u::CommPtr> comms;
    std::vector<int> sources;
    std::unique_ptr<SimMessage*[]> slots;
  };
  simgrid::s4u::Mailbox* mailbox(int from, int to, Tag tag,
                                 std::unordered_map<uint64_t, simgrid::s4u::Mailbox*>& cache);
  AnySource& anySource(Tag tag);
  // Blocking receive of the next message from `peer` with `tag`.
  SimMessage* receive(int peer, Tag tag);

  SimWorld& world_;
  std::unordered_map<uint64_t, simgrid::s4u::Mailbox*> outboxes_;
  std::unordered_map<uint64_t, simgrid::s4u::Mailbox*> inboxes_;
  std::map<Tag, AnySource> anySources_;
};

}  // namespace tetrad::sim
