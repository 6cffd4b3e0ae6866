// MpiRuntime: the process-wide Open MPI library state (internal to
// transport/mpi).
//
// MPI may be initialised once per process and finalised once, so the first
// launch() under MPI initialises it (MPI_Init_thread with
// MPI_THREAD_MULTIPLE; a process not started by mpirun becomes a one-rank
// "singleton" world) and a process-exit hook finalises it; every later
// launch() reuses it. If MPI was already initialised by someone else, the
// runtime only checks that it provides MPI_THREAD_MULTIPLE, and leaves
// finalisation to that owner.
//
// After any launch in this process failed, MPI is NOT finalised at exit:
// MPI_Finalize waits for every rank, and a failed launch usually means that
// a peer is stalled or dead. The process then exits without finalising,
// which makes mpirun tear the whole job down (it should exit non-zero, or
// call abortAllRanks(), as the `tetrad` command does).
//
// Thread-safety: instance() may be called from any thread; the first call
// initialises MPI (C++ guarantees it happens once).
#pragma once

#include <atomic>

namespace tetrad::mpi {

class MpiRuntime {
 public:
  // Initialises MPI on first use; throws TransportError if MPI cannot be
  // initialised, was already finalised, or does not provide
  // MPI_THREAD_MULTIPLE.
  static MpiRuntime& instance();

  int worldRank() const { return worldRank_; }
  int worldSize() const { return worldSize_; }
  // Records that a launch failed: MPI will not be finalised at exit.
  void markFailed() { failed_.store(true); }

  // True while MPI is initialised and not finalised (by anyone).
  static bool active();

 private:
  MpiRuntime();
  ~MpiRuntime();

  bool ownsInit_ = false;
  int worldRank_ = 0;
  int worldSize_ = 1;
  std::atomic<bool> failed_{false};
};

}  // namespace tetrad::mpi
