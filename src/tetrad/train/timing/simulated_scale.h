// Whether a simulated cluster of N ranks fits this machine, checked before
// the simulation starts so that a run too large for it is refused at once
// with an estimate instead of swapping, hanging or crashing in SimGrid.
//
// Two limits, both of this process:
//   memory    every simulated rank is a SimGrid actor with its own stack and
//             per-rank state; a few set-up tables grow with the pairs of
//             ranks. The estimate (simulatedRunBytes) is measured on the
//             analytic engine, payload-free (docs/BENCHMARKS.md, "How large a
//             simulation fits"); runs with payloads need more.
//   mappings  each actor's stack and its guard page are two memory mappings;
//             Linux caps a process at vm.max_map_count (65,530 by default).
//
// Pure functions of their arguments and /proc; any thread.
#pragma once

#include <cstdint>
#include <string>

namespace tetrad::train {

// Estimated peak resident bytes of a payload-free simulation of `ranks`
// ranks, each holding `tensors` parameter tensors.
double simulatedRunBytes(int64_t ranks, int64_t tensors);

// Memory mappings the simulation's actors need.
int64_t simulatedRunMappings(int64_t ranks);

struct MachineLimits {
  double availableBytes = 0;  // MemAvailable (0: unknown, not checked)
  int64_t maxMappings = 0;    // vm.max_map_count (0: unknown, not checked)
};
MachineLimits readMachineLimits();

// Throws InvalidArgument, one line with the estimate and the limit, when a
// simulation of `ranks` ranks cannot fit `limits`.
void checkSimulatedScale(int64_t ranks, int64_t tensors, const MachineLimits& limits);

}  // namespace tetrad::train
