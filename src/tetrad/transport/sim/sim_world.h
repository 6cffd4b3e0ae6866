// SimWorld: the state one simulated run shares between its ranks — the
// in-flight messages, the start of the simulated clock, the run's mode and
// the first error a rank threw. runSimulation (sim_world.cc) owns it; every
// SimTransport of the run holds a reference.
//
// Messages: a send allocates a SimMessage and hands the pointer to SimGrid;
// the receiver copies the payload out and releases it. A non-blocking send
// lends its buffer (the Transport contract keeps it valid and unchanged
// until the request is done), so a receiver that runs before the sender's
// request completes copies straight from the sender's buffer: one copy per
// message, where a copy at isend and another at the receive made two. When
// the send request completes first (or is dropped), it detaches the message:
// the bytes are copied into the message, which the receiver then reads. A
// blocking send detaches before it returns. Messages nobody received (a
// timed-out send, a killed rank) are freed when the world is destroyed, so
// none leaks.
//
// Thread-safety: only from the run's actors (SimGrid runs one at a time) and
// from runSimulation before and after the engine runs.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <unordered_set>
#include <vector>

#include "tetrad/core/bytes.h"
#include "tetrad/transport/analytic_network.h"

namespace tetrad::sim {

struct SimMessage {
  uint64_t size = 0;                  // payload bytes (also the simulated size)
  uint64_t id = 0;                    // unique in the run (a sender's handle)
  const std::byte* lent = nullptr;    // the sender's buffer, until detached
  ByteBuffer bytes;                   // the payload once detached
  const std::byte* payload() const { return lent != nullptr ? lent : bytes.data(); }
};

// What a sender keeps to find its message again: the pointer may have been
// released (and reused) by then, the id tells.
struct SentMessage {
  SimMessage* message = nullptr;
  uint64_t id = 0;
};

class SimWorld {
 public:
  SimWorld(bool payloadFree, int ranksPerNode, double startTime);
  ~SimWorld();
  SimWorld(const SimWorld&) = delete;
  SimWorld& operator=(const SimWorld&) = delete;

  bool payloadFree() const { return payloadFree_; }
  int ranksPerNode() const { return ranksPerNode_; }
  // Engine clock at the start of this run (the clock keeps counting across
  // engines in one process).
  double startTime() const { return startTime_; }

  // A new message of `data.size()` bytes, lending `data` until detach()
  // (payload-free runs carry no bytes).
  SimMessage* newMessage(ConstBytes data);
  // The sender is about to let its buffer go: if the message is still in
  // flight and lends it, copy the bytes into the message.
  void detach(const SentMessage& sent);
  // Frees a received message.
  void release(SimMessage* message);
  size_t messagesInFlight() const { return messages_.size(); }
  // Keeps the slot of a receive that was abandoned while SimGrid may still
  // write a message pointer into it (freed with the world).
  void adoptSlot(std::unique_ptr<SimMessage*> slot) { orphanSlots_.push_back(std::move(slot)); }

  // The analytic engine's network (nullptr: collectives send messages).
  AnalyticNetwork* analytic() const { return analytic_.get(); }
  void setAnalytic(std::unique_ptr<AnalyticNetwork> network) { analytic_ = std::move(network); }

  // Records the first error a rank threw and stops every other actor.
  void fail(int rank, std::exception_ptr error);
  bool failed() const { return error_ != nullptr; }
  // Rethrows the recorded error, its message prefixed with "rank R: " (unless
  // it already names the rank that way), keeping the tetrad error type.
  void rethrowError() const;

 private:
  bool payloadFree_;
  int ranksPerNode_;
  double startTime_;
  std::unordered_set<SimMessage*> messages_;
  uint64_t nextId_ = 0;
  std::vector<std::unique_ptr<SimMessage*>> orphanSlots_;
  int errorRank_ = -1;
  std::exception_ptr error_;
  std::unique_ptr<AnalyticNetwork> analytic_;
};

}  // namespace tetrad::sim
