// Stop signals: SIGINT and SIGTERM ask a training run to stop cleanly —
// finish the current iteration, write a checkpoint, exit non-zero — instead
// of killing the process (docs/reliability.md). SIGUSR1 does the same: it is
// the signal mpirun forwards to every rank of its job, which `tetrad
// elastic` sends to grow a job at its next checkpoint.
//
// StopSignalScope installs the handlers for its lifetime (and restores the
// previous ones); the handler only records the signal. The worker loop
// reads pendingStopSignal() and the workers agree on it (a rank that saw
// the signal tells the others through the per-iteration non-finite check,
// or at the next checkpoint boundary when that check is off), so that every
// rank stops after the same iteration. A second signal while a stop is
// pending ends the process at once, as the default handler would.
//
// Test hook: TETRAD_TEST_STOP_AT=N acts as if SIGTERM arrived during
// iteration N (numbered from 1) on every rank that reaches it.
//
// Thread-safety: pendingStopSignal() may be called from any thread.
#pragma once

#include <csignal>
#include <cstdint>
#include <string>

namespace tetrad::train {

class StopSignalScope {
 public:
  StopSignalScope();
  ~StopSignalScope();
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;

 private:
  struct sigaction previousInt_ {};
  struct sigaction previousTerm_ {};
  struct sigaction previousUsr1_ {};
};

// The stop signal received (SIGINT, SIGTERM or SIGUSR1), or 0; `iteration` (from 1)
// serves the test hook.
int pendingStopSignal(int64_t iteration);
// "SIGINT", "SIGTERM" or "signal N".
std::string signalName(int signal);

}  // namespace tetrad::train
