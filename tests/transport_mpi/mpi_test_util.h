// Helpers for the Open MPI backend's tests, which run under mpirun: every
// rank runs every test; a test's worker runs on all ranks at once.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tetrad/transport/engines.h"
#include "tetrad/transport/transport.h"

namespace tetrad::testing {

// Runs `worker` on every rank over a fresh MPI transport (one launch).
inline void runWorld(const WorkerFn& worker, double timeoutSeconds = 20) {
  LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = timeoutSeconds;
  runMpiWorld(options, worker);
}

// Deterministic test payload: a value that depends on the sender and the index.
inline float payloadValue(int sender, size_t index) {
  return static_cast<float>((static_cast<uint64_t>(sender) * 7919 + index) % 100003);
}

inline std::vector<float> payload(int sender, size_t count) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = payloadValue(sender, i);
  return values;
}

// Number of entries of `values` that differ from payload(sender, ...).
inline size_t payloadMismatches(int sender, std::span<const float> values) {
  size_t wrong = 0;
  for (size_t i = 0; i < values.size(); ++i) wrong += values[i] != payloadValue(sender, i);
  return wrong;
}

}  // namespace tetrad::testing
