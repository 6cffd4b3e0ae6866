#include "tetrad/transport/mpi/thread_queue.h"

#include <chrono>

#include "tetrad/core/error.h"

namespace tetrad::mpi {

ThreadQueue::ThreadQueue(int rank, std::string name, double timeoutSeconds)
    : rank_(rank), name_(std::move(name)), timeoutSeconds_(timeoutSeconds) {}

void ThreadQueue::push(int64_t value) {
  {
    std::lock_guard lock(mutex_);
    values_.push_back(value);
  }
  ready_.notify_one();
}

int64_t ThreadQueue::pop() {
  std::unique_lock lock(mutex_);
  const auto limit = std::chrono::duration<double>(timeoutSeconds_);
  const bool ready = ready_.wait_for(lock, limit, [this] { return !values_.empty(); });
  TETRAD_CHECK(ready, TimeoutError, "rank {}: waiting on queue '{}' timed out after {} s", rank_,
               name_, timeoutSeconds_);
  const int64_t value = values_.front();
  values_.pop_front();
  return value;
}

}  // namespace tetrad::mpi
