// SimQueue: the SimGrid backend's LocalQueue (transport.h): integers handed
// between the actors of one rank. A std::deque holds the values and a SimGrid
// semaphore counts them, so pop() suspends the actor (never the simulation)
// for at most the transport's timeout in simulated seconds. Pushing and
// popping take no simulated time.
//
// Thread-safety: only from the actors of the rank (SimGrid runs one actor at
// a time, and the deque is never touched across a simcall).
#pragma once

#include <simgrid/forward.h>

#include <deque>
#include <string>

#include "tetrad/transport/transport.h"

namespace tetrad::sim {

class SimQueue final : public LocalQueue {
 public:
  SimQueue(int rank, std::string name, double timeoutSeconds);
  void push(int64_t value) override;
  int64_t pop() override;

 private:
  int rank_;
  std::string name_;
  double timeoutSeconds_;
  simgrid::s4u::SemaphorePtr count_;
  std::deque<int64_t> values_;
};

}  // namespace tetrad::sim
