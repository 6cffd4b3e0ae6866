// The Open MPI engine's entry points (declared in transport/engines.h):
// runMpiWorld() runs the worker on this process's rank over a fresh
// MpiTransport; abortMpiWorld() stops every rank of the job.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "tetrad/core/error.h"
#include "tetrad/transport/engines.h"
#include "tetrad/transport/mpi/mpi_runtime.h"
#include "tetrad/transport/mpi/mpi_transport.h"

namespace tetrad {

void runMpiWorld(const LaunchOptions& options, const WorkerFn& worker) {
  mpi::MpiRuntime& runtime = mpi::MpiRuntime::instance();
  try {
    mpi::MpiTransport transport(options.timeoutSeconds);
    worker(transport);
    transport.close();
  } catch (...) {
    runtime.markFailed();
    rethrowWithPrefix(fmt::format("rank {}: ", runtime.worldRank()));
  }
}

void abortMpiWorld(int code) {
  if (!mpi::MpiRuntime::active()) return;
  // MPI_Abort kills this process too: keep what it has printed.
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
}

}  // namespace tetrad
