// Launcher: runs one worker function on every rank of a cluster, on either
// engine, so that the same `worker(Transport&)` code runs on real processes
// and on a simulated cluster.
//
//   --cluster mpi          Open MPI. This process is one rank; mpirun starts
//                          the others. Time is wall-clock time.
//   --cluster sim:SPEC     SimGrid. All ranks are actors in this process on a
//                          simulated platform described by SPEC (see
//                          transport/sim/cluster_spec.h and the README).
//
// launch() returns when every rank has returned. If a rank throws, the error
// (with the rank named in its message) is rethrown by launch(): under SimGrid
// after the other ranks are stopped; under MPI on the failing rank, while the
// others fail on their own timeouts or are stopped by abortAllRanks().
//
// Thread-safety: call from the main thread only, one launch at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad {

struct LaunchOptions {
  // "mpi" or "sim:..." (see above).
  std::string cluster = "sim:4x10Gbps,25us";
  // Number of ranks for a simulated cluster whose spec does not fix it
  // (e.g. "sim:10Gbps,25us" or a platform file). 0: take it from the spec.
  int workers = 0;
  // Timeout of every wait, in seconds of the engine's clock.
  double timeoutSeconds = 120;
  // Simulation only: messages carry sizes but no bytes (see transport.h).
  bool payloadFree = false;
  // Simulation only: extra SimGrid configuration items, e.g.
  // "network/model:CM02" (passed as --cfg=ITEM).
  std::vector<std::string> simConfig;
  // Simulation only: show SimGrid's own log messages.
  bool simVerbose = false;
  // Simulation only: the analytic engine (transport/analytic_network.h):
  // collectives in closed form, contention-free. Needs payloadFree, a star
  // or two-level cluster and CM02 without cross traffic (InvalidArgument).
  bool analyticCollectives = false;
};

using WorkerFn = std::function<void(Transport&)>;

// Runs `worker` on every rank; see the header comment.
void launch(const LaunchOptions& options, const WorkerFn& worker);

// True for "mpi", false for "sim:...", InvalidArgument otherwise.
bool isMpiCluster(const std::string& cluster);

// Ranks the cluster spec fixes by itself: N for "sim:Nx...", the hosts of
// a fat-tree or torus, kHostsOfPlatformFile for an XML platform (known once
// loaded); 0 when the spec leaves the count to --workers, and under MPI
// (mpirun decides). Throws InvalidArgument on a malformed spec.
constexpr int kHostsOfPlatformFile = -1;
int fixedHostCount(const std::string& cluster);

// Under MPI (if initialised): MPI_Abort(code) so that every rank stops now.
// Otherwise does nothing and returns.
void abortAllRanks(int code);

// True when this process should print run-level output: always under
// SimGrid (one process), rank 0 only under MPI. Valid before launch().
bool isOutputProcess();

}  // namespace tetrad
