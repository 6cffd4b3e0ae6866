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
// The launcher is its own library (tetrad_launch), above the transport
// layer and both engines: the engines implement the Transport interface of
// tetrad_transport and their entry points (transport/engines.h), and only
// this library links them, so no static library depends on one above it.
// LaunchOptions and WorkerFn are in transport/launch_options.h, where the
// engines see them.
//
// Thread-safety: call from the main thread only, one launch at a time.
#pragma once

#include <string>

#include "tetrad/transport/cluster_network.h"
#include "tetrad/transport/launch_options.h"

namespace tetrad {

// Runs `worker` on every rank; see the header comment.
void launch(const LaunchOptions& options, const WorkerFn& worker);

// True for "mpi", false for "sim:...", InvalidArgument otherwise.
bool isMpiCluster(const std::string& cluster);

// Ranks the cluster spec fixes by itself: N for "sim:Nx...", the hosts of
// a fat-tree or torus, kHostsOfPlatformFile for an XML platform (known once
// loaded); 0 when the spec leaves the count to --workers, and under MPI
// (mpirun decides; kHostsOfPlatformFile: transport/launch_options.h). Throws
// InvalidArgument on a malformed spec.
int fixedHostCount(const std::string& cluster);

// Under MPI (if initialised): MPI_Abort(code) so that every rank stops now.
// Otherwise does nothing and returns.
void abortAllRanks(int code);

// True when this process should print run-level output: always under
// SimGrid (one process), rank 0 only under MPI. Valid before launch().
bool isOutputProcess();

// The links of a "sim:..." cluster spec, parsed by the simulator's own parser
// (transport/cluster_network.h); throws InvalidArgument on "mpi" (no network
// to read) and on a malformed spec (the simulator's own message).
ClusterNetwork clusterNetwork(const std::string& cluster);

}  // namespace tetrad
