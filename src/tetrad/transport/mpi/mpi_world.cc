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

namespace {

// "rank R: MESSAGE", unless MESSAGE already starts with that prefix.
std::string withRank(int rank, std::string_view message) {
  std::string prefix = fmt::format("rank {}: ", rank);
  if (message.starts_with(prefix)) return std::string(message);
  return prefix + std::string(message);
}

// Rethrows the exception being handled as the same tetrad error type, with
// the rank named in its message.
[[noreturn]] void rethrowWithRank(int rank) {
  try {
    throw;
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(withRank(rank, e.what()));
  } catch (const TimeoutError& e) {
    throw TimeoutError(withRank(rank, e.what()));
  } catch (const TransportError& e) {
    throw TransportError(withRank(rank, e.what()));
  } catch (const ProtocolError& e) {
    throw ProtocolError(withRank(rank, e.what()));
  } catch (const Unsupported& e) {
    throw Unsupported(withRank(rank, e.what()));
  } catch (const std::exception& e) {
    throw Error(withRank(rank, e.what()));
  } catch (...) {
    throw Error(withRank(rank, "unknown exception"));
  }
}

}  // namespace

void runMpiWorld(const LaunchOptions& options, const WorkerFn& worker) {
  mpi::MpiRuntime& runtime = mpi::MpiRuntime::instance();
  try {
    mpi::MpiTransport transport(options.timeoutSeconds);
    worker(transport);
    transport.close();
  } catch (...) {
    runtime.markFailed();
    rethrowWithRank(runtime.worldRank());
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
