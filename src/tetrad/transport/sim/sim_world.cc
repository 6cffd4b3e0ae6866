#include "tetrad/transport/sim/sim_world.h"

#include <fmt/format.h>

#include <simgrid/s4u/Actor.hpp>
#include <string>
#include <string_view>

#include "tetrad/core/error.h"

namespace tetrad::sim {

SimWorld::SimWorld(bool payloadFree, int ranksPerNode, double startTime)
    : payloadFree_(payloadFree), ranksPerNode_(ranksPerNode), startTime_(startTime) {}

SimWorld::~SimWorld() {
  for (SimMessage* message : messages_) delete message;
}

SimMessage* SimWorld::newMessage(ConstBytes data) {
  auto message = std::make_unique<SimMessage>();
  message->size = data.size();
  message->id = ++nextId_;
  if (!payloadFree_ && !data.empty()) message->lent = data.data();
  messages_.insert(message.get());
  return message.release();
}

void SimWorld::detach(const SentMessage& sent) {
  if (sent.message == nullptr || !messages_.contains(sent.message)) return;  // received
  SimMessage& message = *sent.message;
  if (message.id != sent.id || message.lent == nullptr) return;  // another message now
  message.bytes.assign(message.lent, message.lent + message.size);
  message.lent = nullptr;
}

void SimWorld::release(SimMessage* message) {
  if (messages_.erase(message) > 0) delete message;
}

void SimWorld::fail(int rank, std::exception_ptr error) {
  if (error_ != nullptr) return;
  errorRank_ = rank;
  error_ = std::move(error);
  // Stops every other actor (ranks and their tasks) now: their stacks unwind.
  simgrid::s4u::Actor::kill_all();
}

void SimWorld::rethrowError() const {
  if (error_ == nullptr) return;
  try {
    std::rethrow_exception(error_);
  } catch (...) {
    rethrowWithPrefix(fmt::format("rank {}: ", errorRank_));
  }
}

}  // namespace tetrad::sim
