#include "tetrad/transport/mpi/mpi_runtime.h"

#include <dlfcn.h>
#include <mpi.h>

#include <string_view>

#include "tetrad/core/error.h"
#include "tetrad/transport/mpi/mpi_util.h"

namespace tetrad::mpi {

namespace {
const char* threadLevelName(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "an unknown thread level";
  }
}
}  // namespace

MpiRuntime& MpiRuntime::instance() {
  // Destroyed at process exit, after main() returns or exit() is called.
  static MpiRuntime runtime;
  return runtime;
}

bool MpiRuntime::active() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

MpiRuntime::MpiRuntime() {
  // libsimgrid exports MPI_* too (SMPI): if it comes first in load order,
  // MPI calls land there and abort. Say so instead (the link order:
  // CMakeLists.txt, and tests/transport_mpi/link_order_check.cc).
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) != 0 && info.dli_fname != nullptr &&
      std::string_view(info.dli_fname).find("simgrid") != std::string_view::npos) {
    TETRAD_FAIL(TransportError,
                "MPI_Init_thread resolves to {} (SimGrid's SMPI), not Open MPI: link libmpi "
                "before libsimgrid",
                info.dli_fname);
  }
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  TETRAD_CHECK(!finalized, TransportError,
               "MPI was already finalised in this process; it cannot be initialised again");
  int provided = MPI_THREAD_SINGLE;
  if (initialized) {
    checkMpi(MPI_Query_thread(&provided), -1, "MPI_Query_thread");
  } else {
    checkMpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), -1,
             "MPI_Init_thread");
    ownsInit_ = true;
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    // Do not finalise a library we cannot use: leave it to process exit.
    TETRAD_FAIL(TransportError,
                "the MPI library provides {} but tetrad needs MPI_THREAD_MULTIPLE (communication "
                "threads); use an Open MPI built with thread support",
                threadLevelName(provided));
  }
  checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &worldRank_), -1, "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &worldSize_), worldRank_, "MPI_Comm_size");
}

MpiRuntime::~MpiRuntime() {
  if (!ownsInit_ || failed_.load() || !active()) return;
  MPI_Finalize();
}

}  // namespace tetrad::mpi
