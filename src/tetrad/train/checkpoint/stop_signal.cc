#include "tetrad/train/checkpoint/stop_signal.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace tetrad::train {
namespace {

std::atomic<int> gPending{0};

extern "C" void onStopSignal(int signal) {
  int expected = 0;
  if (!gPending.compare_exchange_strong(expected, signal)) {
    ::_exit(128 + signal);  // the second one: stop now
  }
}

// Read at every call, so that one test process can run, stop and resume.
int64_t testStopIteration() {
  const char* text = std::getenv("TETRAD_TEST_STOP_AT");
  return text ? std::atoll(text) : 0;
}

}  // namespace

StopSignalScope::StopSignalScope() {
  gPending = 0;
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previousInt_);
  sigaction(SIGTERM, &action, &previousTerm_);
  sigaction(SIGUSR1, &action, &previousUsr1_);
}

StopSignalScope::~StopSignalScope() {
  sigaction(SIGINT, &previousInt_, nullptr);
  sigaction(SIGTERM, &previousTerm_, nullptr);
  sigaction(SIGUSR1, &previousUsr1_, nullptr);
}

int pendingStopSignal(int64_t iteration) {
  const int64_t at = testStopIteration();
  if (at > 0 && iteration >= at) return SIGTERM;
  return gPending.load();
}

std::string signalName(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  if (signal == SIGUSR1) return "SIGUSR1";
  return "signal " + std::to_string(signal);
}

}  // namespace tetrad::train
