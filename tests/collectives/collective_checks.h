// The correctness sweep shared by the SimGrid tests (collectives_sim_test)
// and the MPI test binary (collectives_mpi_check): every collective and
// algorithm on every length of the plan, compared with the references of
// reference.h. Runs on one rank; every rank of the world must call it with
// the same plan. Returns one line per failed case (empty: all passed).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tetrad/launch/launcher.h"
#include "tetrad/transport/transport.h"

namespace tetrad::testing {

struct CheckPlan {
  std::vector<size_t> lengths;  // element counts to try
  bool includeNative = false;   // the engine's own all-reduce (MPI)
  double barrierDelay = 1e-3;   // seconds each rank r sleeps r times before a barrier
};

// Lengths {0, 1, p-1, 2p+3, 1001}, plus `large` when non-zero (duplicates removed).
std::vector<size_t> standardLengths(int p, size_t large);

std::vector<std::string> runCollectiveChecks(Transport& transport, const CheckPlan& plan);

// A simulated star of p ranks (10 Gb/s, 25 us); contention-free (CM02, no
// cross traffic, so times follow the α–β model) unless told otherwise.
LaunchOptions starCluster(int p, bool contentionFree = true);

}  // namespace tetrad::testing
