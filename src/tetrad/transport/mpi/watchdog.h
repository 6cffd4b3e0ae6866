// Watchdog: a deadline for a blocking call that has no timeout of its own
// (internal to transport/mpi).
//
// MPI_Allreduce cannot time out, yet every wait in tetrad must. A Watchdog
// owns one helper thread (started on first use) that sleeps until the armed
// deadline; if the call is still running then, it calls `onExpiry` with the
// description given to arm() — the MPI backend prints it and aborts the MPI
// job, the only way to stop a blocking collective. Guard a call with a
// Watchdog::Scope.
//
// Thread-safety: one armed call at a time (MPI collectives on one
// communicator are called by one thread at a time anyway); arm/disarm and
// destruction from that thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tetrad::mpi {

class Watchdog {
 public:
  explicit Watchdog(std::function<void(const std::string&)> onExpiry);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(double seconds, std::string description);
  void disarm();

  class Scope {
   public:
    Scope(Watchdog& watchdog, double seconds, std::string description) : watchdog_(watchdog) {
      watchdog_.arm(seconds, std::move(description));
    }
    ~Scope() { watchdog_.disarm(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Watchdog& watchdog_;
  };

 private:
  void run();

  std::function<void(const std::string&)> onExpiry_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::string description_;
  std::thread thread_;
};

}  // namespace tetrad::mpi
