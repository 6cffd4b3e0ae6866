#include "tetrad/transport/sim/sim_transport.h"

#include <fmt/format.h>

#include <cstring>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include "tetrad/core/error.h"
#include "tetrad/transport/diagnostics.h"
#include "tetrad/transport/sim/sim_queue.h"
#include "tetrad/transport/sim/sim_request.h"

namespace tetrad::sim {

namespace s4u = simgrid::s4u;

SimTransport::SimTransport(SimWorld& world, int rank, int size, double timeoutSeconds)
    : Transport(rank, size, timeoutSeconds), world_(world) {}

// Runs after the engine has stopped: only drops references, no simcalls.
SimTransport::~SimTransport() = default;

s4u::Mailbox* SimTransport::mailbox(int from, int to, Tag tag,
                                    std::unordered_map<uint64_t, s4u::Mailbox*>& cache) {
  int peer = from == rank() ? to : from;
  uint64_t key = (static_cast<uint64_t>(peer) << 32) | tag;
  auto [it, inserted] = cache.try_emplace(key, nullptr);
  if (inserted) it->second = s4u::Mailbox::by_name(fmt::format("{}>{}:{}", from, to, tag));
  return it->second;
}

s4u::Mailbox* SimTransport::outbox(int peer, Tag tag) {
  return mailbox(rank(), peer, tag, outboxes_);
}
s4u::Mailbox* SimTransport::inbox(int peer, Tag tag) {
  return mailbox(peer, rank(), tag, inboxes_);
}

void SimTransport::waitComm(const s4u::CommPtr& comm, const char* what, int peer, Tag tag) {
  try {
    // Stall report (diagnostics.h): wait up to the threshold without
    // cancelling the comm, report, then wait for the rest of the timeout.
    const double warn = diagnostics().stallWarnSeconds(timeout());
    if (warn > 0 && warn < timeout()) {
      if (s4u::Comm::wait_any_for({comm}, warn) >= 0) return;
      reportStall(*this, what, peer, tag, -1, warn);
      comm->wait_for(timeout() - warn);
    } else {
      comm->wait_for(timeout());
    }
  } catch (const simgrid::TimeoutException&) {
    TETRAD_FAIL(TimeoutError, "rank {}: {} rank {} (tag {}) timed out after {} s of simulated time",
                rank(), what, peer, tag, timeout());
  } catch (const simgrid::Exception& e) {
    TETRAD_FAIL(TransportError, "rank {}: {} rank {} (tag {}) failed: {}", rank(), what, peer, tag,
                e.what());
  }
}

void SimTransport::deliver(SimMessage* message, int peer, Tag tag, MutableBytes data) {
  consumeMessage(message, peer, tag, data.size(), [data](ConstBytes bytes) {
    if (!bytes.empty()) std::memcpy(data.data(), bytes.data(), bytes.size());
  });
}

void SimTransport::consumeMessage(SimMessage* message, int peer, Tag tag, size_t expected,
                                  const ConsumeBytes& consume) {
  const uint64_t size = message->size;
  if (size != expected) {
    world_.release(message);
    TETRAD_FAIL(ProtocolError,
                "rank {}: message from rank {} (tag {}) has {} bytes, the receiver expected {}",
                rank(), peer, tag, size, expected);
  }
  traffic().countReceived(peer, size);
  try {
    if (!world_.payloadFree()) consume(ConstBytes(message->payload(), size));
  } catch (...) {
    world_.release(message);
    throw;
  }
  world_.release(message);
}

ByteBuffer SimTransport::take(SimMessage* message, int peer) {
  ByteBuffer bytes;
  if (world_.payloadFree()) {
    bytes.resize(message->size);
  } else if (message->lent != nullptr) {
    bytes.assign(message->lent, message->lent + message->size);
  } else {
    bytes = std::move(message->bytes);
  }
  traffic().countReceived(peer, message->size);
  world_.release(message);
  return bytes;
}

void SimTransport::send(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "send");
  checkTag(tag, "send");
  SimMessage* message = world_.newMessage(data);
  const SentMessage sent{message, message->id};
  traffic().countSent(peer, data.size());
  s4u::CommPtr comm = outbox(peer, tag)->put_async(message, data.size());
  try {
    waitComm(comm, "send to", peer, tag);
  } catch (...) {  // the caller's buffer goes with the unwinding
    world_.detach(sent);
    throw;
  }
  world_.detach(sent);
}

SimMessage* SimTransport::receive(int peer, Tag tag) {
  // The slot SimGrid writes the message pointer into outlives a failed wait.
  auto slot = std::make_unique<SimMessage*>(nullptr);
  s4u::CommPtr comm = inbox(peer, tag)->get_async(slot.get());
  try {
    waitComm(comm, "recv from", peer, tag);
  } catch (...) {  // also a kill: rethrown
    world_.adoptSlot(std::move(slot));
    throw;
  }
  return *slot;
}

void SimTransport::recv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "recv");
  checkTag(tag, "recv");
  deliver(receive(peer, tag), peer, tag, data);
}

ByteBuffer SimTransport::recvMessage(int peer, Tag tag) {
  checkPeer(peer, "recvMessage");
  checkTag(tag, "recvMessage");
  return take(receive(peer, tag), peer);
}

SimTransport::AnySource& SimTransport::anySource(Tag tag) {
  auto [it, inserted] = anySources_.try_emplace(tag);
  AnySource& any = it->second;
  if (inserted) {
    any.slots = std::make_unique<SimMessage*[]>(static_cast<size_t>(size()));
    for (int source = 0; source < size(); ++source) {
      size_t index = any.sources.size();
      any.slots[index] = nullptr;
      any.sources.push_back(source);
      any.comms.push_back(inbox(source, tag)->get_async(&any.slots[index]));
    }
  }
  return any;
}

Message SimTransport::recvAny(Tag tag) {
  checkTag(tag, "recvAny");
  AnySource& any = anySource(tag);
  ssize_t index;
  try {
    const double warn = diagnostics().stallWarnSeconds(timeout());
    if (warn > 0 && warn < timeout()) {
      index = s4u::Comm::wait_any_for(any.comms, warn);
      if (index < 0) {
        reportStall(*this, "recvAny from", -1, tag, -1, warn);
        index = s4u::Comm::wait_any_for(any.comms, timeout() - warn);
      }
    } else {
      index = s4u::Comm::wait_any_for(any.comms, timeout());
    }
  } catch (const simgrid::Exception& e) {
    TETRAD_FAIL(TransportError, "rank {}: recvAny (tag {}) failed: {}", rank(), tag, e.what());
  }
  TETRAD_CHECK(index >= 0, TimeoutError,
               "rank {}: recvAny (tag {}) timed out after {} s of simulated time: no rank sent",
               rank(), tag, timeout());
  int source = any.sources[index];
  SimMessage* message = any.slots[index];
  any.slots[index] = nullptr;
  any.comms[index] = inbox(source, tag)->get_async(&any.slots[index]);
  return Message{source, take(message, source)};
}

void SimTransport::closeAnyReceives() {
  for (auto& [tag, any] : anySources_) {
    for (size_t i = 0; i < any.comms.size(); ++i) {
      // A receive that completed holds a message nobody will read.
      if (any.comms[i]->get_state() == s4u::Activity::State::FINISHED) {
        world_.release(any.slots[i]);
      } else {
        any.comms[i]->cancel();
      }
    }
  }
  anySources_.clear();
}

RequestPtr SimTransport::isend(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "isend");
  checkTag(tag, "isend");
  SimMessage* message = world_.newMessage(data);
  traffic().countSent(peer, data.size());
  s4u::CommPtr comm = outbox(peer, tag)->put_async(message, data.size());
  return std::make_unique<SimSendRequest>(*this, std::move(comm), peer, tag,
                                          SentMessage{message, message->id});
}

RequestPtr SimTransport::irecv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "irecv");
  checkTag(tag, "irecv");
  return std::make_unique<SimRecvRequest>(*this, peer, tag, data);
}

RequestPtr SimTransport::irecvConsume(int peer, Tag tag, MutableBytes staging,
                                      ConsumeBytes consume) {
  checkPeer(peer, "irecv");
  checkTag(tag, "irecv");
  return std::make_unique<SimRecvRequest>(*this, peer, tag, staging, std::move(consume));
}

double SimTransport::now() const {
  return s4u::Engine::get_clock() - world_.startTime();
}

void SimTransport::compute(double seconds) {
  TETRAD_CHECK(seconds >= 0, InvalidArgument, "rank {}: compute({}) with a negative time", rank(),
               seconds);
  if (seconds > 0) s4u::this_actor::sleep_for(seconds);
}

void SimTransport::sleepFor(double seconds) {
  TETRAD_CHECK(seconds >= 0, InvalidArgument, "rank {}: sleepFor({}) with a negative time", rank(),
               seconds);
  if (seconds > 0) s4u::this_actor::sleep_for(seconds);
}

void SimTransport::yieldToPeers() {
  s4u::this_actor::yield();
}

TaskPtr SimTransport::spawn(std::string name, std::function<void()> body) {
  return std::make_unique<SimTask>(*this, std::move(name), std::move(body));
}

LocalQueuePtr SimTransport::makeQueue(std::string name) {
  return std::make_unique<SimQueue>(rank(), std::move(name), timeout());
}

}  // namespace tetrad::sim
