// Wall-clock seconds for measuring computation (std::chrono::steady_clock),
// shared by the replica, the overlapped loop and the timing-only probe, and
// the calling thread's CPU seconds, for passes that share the cores with
// other passes (compute_pool.h).
//
// Thread-safety: pure functions.
#pragma once

#include <time.h>

#include <chrono>

namespace tetrad::train {

using WallClock = std::chrono::steady_clock;

inline double secondsSince(WallClock::time_point start) {
  return std::chrono::duration<double>(WallClock::now() - start).count();
}

// CPU seconds this thread has run (CLOCK_THREAD_CPUTIME_ID): time spent
// waiting for a core does not count.
inline double threadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

}  // namespace tetrad::train
