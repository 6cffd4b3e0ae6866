// Pending operations of a SimTransport: non-blocking sends and receives
// (Request) and spawned actors (Task). Internal to transport/sim.
//
// A receive request owns the slot SimGrid writes the message pointer into;
// dropped before completion it cancels its receive (or, while the stack
// unwinds from an error or a kill, when no simcall is allowed, hands the slot
// to the SimWorld). A dropped send request lets its message go on.
//
// Threads: only from the owning rank's actors.
#pragma once

#include <simgrid/forward.h>

#include <exception>
#include <functional>
#include <memory>
#include <string>

#include "tetrad/transport/sim/sim_transport.h"

namespace tetrad::sim {

class SimSendRequest final : public Request {
 public:
  // `sent`: the message, which lends the caller's buffer until this request
  // is done or dropped (sim_world.h).
  SimSendRequest(SimTransport& transport, simgrid::s4u::CommPtr comm, int peer, Tag tag,
                 SentMessage sent);
  ~SimSendRequest() override;
  void wait() override;
  bool test() override;

 private:
  SimTransport& transport_;
  simgrid::s4u::CommPtr comm_;
  int peer_;
  Tag tag_;
  SentMessage sent_;
  bool done_ = false;
};

class SimRecvRequest final : public Request {
 public:
  // With `consume`, the message's bytes go to it (irecvConsume) and `data`
  // only gives the expected size.
  SimRecvRequest(SimTransport& transport, int peer, Tag tag, MutableBytes data,
                 Transport::ConsumeBytes consume = {});
  ~SimRecvRequest() override;
  void wait() override;
  bool test() override;

 private:
  void finish();

  SimTransport& transport_;
  int peer_;
  Tag tag_;
  MutableBytes data_;
  Transport::ConsumeBytes consume_;
  std::unique_ptr<SimMessage*> slot_;
  simgrid::s4u::CommPtr comm_;
  bool done_ = false;
};

class SimTask final : public Task {
 public:
  SimTask(SimTransport& transport, std::string name, std::function<void()> body);
  ~SimTask() override;
  void join() override;

 private:
  struct State {
    bool finished = false;
    std::exception_ptr error;
  };
  SimTransport& transport_;
  std::string name_;
  std::shared_ptr<State> state_;
  simgrid::s4u::ActorPtr actor_;
  bool joined_ = false;
};

}  // namespace tetrad::sim
