// Wall-clock seconds for measuring computation (std::chrono::steady_clock),
// shared by the replica, the overlapped loop and the timing-only probe.
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>

namespace tetrad::train {

using WallClock = std::chrono::steady_clock;

inline double secondsSince(WallClock::time_point start) {
  return std::chrono::duration<double>(WallClock::now() - start).count();
}

}  // namespace tetrad::train
