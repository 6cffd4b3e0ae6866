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
  if (!payloadFree_) message->bytes.assign(data.begin(), data.end());
  messages_.insert(message.get());
  return message.release();
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

namespace {

template <typename ErrorType>
[[noreturn]] void throwWithRank(int rank, const ErrorType& error) {
  std::string_view message = error.what();
  std::string prefix = fmt::format("rank {}: ", rank);
  if (message.starts_with(prefix)) throw ErrorType(std::string(message));
  throw ErrorType(prefix + std::string(message));
}

}  // namespace

void SimWorld::rethrowError() const {
  if (error_ == nullptr) return;
  try {
    std::rethrow_exception(error_);
  } catch (const InvalidArgument& e) {
    throwWithRank(errorRank_, e);
  } catch (const TimeoutError& e) {
    throwWithRank(errorRank_, e);
  } catch (const TransportError& e) {
    throwWithRank(errorRank_, e);
  } catch (const ProtocolError& e) {
    throwWithRank(errorRank_, e);
  } catch (const Unsupported& e) {
    throwWithRank(errorRank_, e);
  } catch (const Error& e) {
    throwWithRank(errorRank_, e);
  } catch (const std::exception& e) {
    throwWithRank(errorRank_, Error(e.what()));
  } catch (...) {
    throwWithRank(errorRank_, Error("unknown exception"));
  }
}

}  // namespace tetrad::sim
