#include "tetrad/transport/mpi/watchdog.h"

#include <utility>

namespace tetrad::mpi {

Watchdog::Watchdog(std::function<void(const std::string&)> onExpiry)
    : onExpiry_(std::move(onExpiry)) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(double seconds, std::string description) {
  {
    std::lock_guard lock(mutex_);
    armed_ = true;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(seconds));
    description_ = std::move(description);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  changed_.notify_all();
}

void Watchdog::disarm() {
  std::lock_guard lock(mutex_);
  armed_ = false;
}

void Watchdog::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!armed_) {
      changed_.wait(lock);
      continue;
    }
    if (std::chrono::steady_clock::now() < deadline_) {
      changed_.wait_until(lock, deadline_);
      continue;
    }
    armed_ = false;
    std::string description = description_;
    lock.unlock();
    try {
      onExpiry_(description);
    } catch (...) {
      // Nothing can be reported from here; onExpiry normally does not return.
    }
    lock.lock();
  }
}

}  // namespace tetrad::mpi
