#include "tetrad/transport/sim/sim_request.h"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include "tetrad/core/error.h"

namespace tetrad::sim {
namespace {

namespace s4u = simgrid::s4u;

bool testComm(const s4u::CommPtr& comm, int rank, const char* what, int peer, Tag tag) {
  try {
    return comm->test();
  } catch (const simgrid::Exception& e) {
    TETRAD_FAIL(TransportError, "rank {}: {} rank {} (tag {}) failed: {}", rank, what, peer, tag,
                e.what());
  }
}

}  // namespace

SimSendRequest::SimSendRequest(SimTransport& transport, s4u::CommPtr comm, int peer, Tag tag,
                               SentMessage sent)
    : transport_(transport), comm_(std::move(comm)), peer_(peer), tag_(tag), sent_(sent) {}

// Dropping the request lets the message go on with its own copy of the
// bytes (no simcall: also while unwinding).
SimSendRequest::~SimSendRequest() {
  if (!done_) transport_.world().detach(sent_);
}

void SimSendRequest::wait() {
  if (done_) return;
  transport_.waitComm(comm_, "isend to", peer_, tag_);
  transport_.world().detach(sent_);  // a receiver that has not run yet
  done_ = true;
}

bool SimSendRequest::test() {
  if (!done_ && testComm(comm_, transport_.rank(), "isend to", peer_, tag_)) {
    transport_.world().detach(sent_);
    done_ = true;
  }
  return done_;
}

SimRecvRequest::SimRecvRequest(SimTransport& transport, int peer, Tag tag, MutableBytes data,
                               Transport::ConsumeBytes consume)
    : transport_(transport),
      peer_(peer),
      tag_(tag),
      data_(data),
      consume_(std::move(consume)),
      slot_(std::make_unique<SimMessage*>(nullptr)) {
  comm_ = transport_.inbox(peer, tag)->get_async(slot_.get());
}

SimRecvRequest::~SimRecvRequest() {
  if (done_) return;
  if (comm_->get_state() == s4u::Activity::State::FINISHED) {
    transport_.world().release(*slot_);  // received, never read
  } else if (std::uncaught_exceptions() == 0) {
    comm_->cancel();  // so that it cannot take a later message
  } else {
    // Unwinding (an error, or the actor being killed): no simcall allowed.
    transport_.world().adoptSlot(std::move(slot_));
  }
}

void SimRecvRequest::finish() {
  done_ = true;
  SimMessage* message = *slot_;
  *slot_ = nullptr;
  if (consume_) {
    transport_.consumeMessage(message, peer_, tag_, data_.size(), consume_);
  } else {
    transport_.deliver(message, peer_, tag_, data_);
  }
}

void SimRecvRequest::wait() {
  if (done_) return;
  transport_.waitComm(comm_, "irecv from", peer_, tag_);
  finish();
}

bool SimRecvRequest::test() {
  if (done_) return true;
  if (!testComm(comm_, transport_.rank(), "irecv from", peer_, tag_)) return false;
  finish();
  return true;
}

SimTask::SimTask(SimTransport& transport, std::string name, std::function<void()> body)
    : transport_(transport), name_(std::move(name)), state_(std::make_shared<State>()) {
  std::shared_ptr<State> state = state_;
  actor_ = s4u::Actor::create(fmt::format("rank{}-{}", transport.rank(), name_),
                              s4u::this_actor::get_host(), [state, body = std::move(body)] {
                                try {
                                  body();
                                } catch (const simgrid::ForcefulKillException&) {
                                  throw;  // being killed: must unwind
                                } catch (...) {
                                  state->error = std::current_exception();
                                }
                                state->finished = true;
                              });
}

// A task never joined keeps running; its errors are lost with it.
SimTask::~SimTask() = default;

void SimTask::join() {
  TETRAD_CHECK(!joined_, InvalidArgument, "rank {}: task '{}' joined twice", transport_.rank(),
               name_);
  if (!state_->finished) actor_->join(transport_.timeout());
  TETRAD_CHECK(state_->finished, TimeoutError,
               "rank {}: task '{}' did not finish within {} s of simulated time", transport_.rank(),
               name_, transport_.timeout());
  joined_ = true;
  if (state_->error) std::rethrow_exception(state_->error);
}

}  // namespace tetrad::sim
