// Entry points of the two engines, called by the launcher (launch/launcher.cc).
// Declared here, without <mpi.h> or SimGrid headers, so that nothing above
// the transport layer sees either engine.
#pragma once

#include "tetrad/transport/cluster_network.h"
#include "tetrad/transport/launch_options.h"

namespace tetrad {

// transport/mpi: initialises MPI once per process (MPI_THREAD_MULTIPLE;
// finalised at exit), runs `worker` on this process's rank.
void runMpiWorld(const LaunchOptions& options, const WorkerFn& worker);
// MPI_Abort(code) if MPI is initialised and not finalised; otherwise returns.
void abortMpiWorld(int code);

// transport/sim: builds the platform from options.cluster ("sim:..."), starts
// one actor per rank, runs the simulation to the end, rethrows the first
// error a rank threw.
void runSimulation(const LaunchOptions& options, const WorkerFn& worker);
// transport/sim: see fixedHostCount() in launch/launcher.h.
int simFixedHostCount(const std::string& cluster);
// transport/sim: see clusterNetwork() in launch/launcher.h.
ClusterNetwork simClusterNetwork(const std::string& cluster);

}  // namespace tetrad
