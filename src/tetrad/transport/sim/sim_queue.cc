#include "tetrad/transport/sim/sim_queue.h"

#include <simgrid/s4u/Semaphore.hpp>

#include "tetrad/core/error.h"

namespace tetrad::sim {

SimQueue::SimQueue(int rank, std::string name, double timeoutSeconds)
    : rank_(rank),
      name_(std::move(name)),
      timeoutSeconds_(timeoutSeconds),
      count_(simgrid::s4u::Semaphore::create(0)) {}

void SimQueue::push(int64_t value) {
  values_.push_back(value);
  count_->release();
}

int64_t SimQueue::pop() {
  const bool timedOut = count_->acquire_timeout(timeoutSeconds_);
  TETRAD_CHECK(!timedOut, TimeoutError,
               "rank {}: waiting on queue '{}' timed out after {} s of simulated time", rank_,
               name_, timeoutSeconds_);
  const int64_t value = values_.front();
  values_.pop_front();
  return value;
}

}  // namespace tetrad::sim
