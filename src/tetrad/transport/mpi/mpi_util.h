// Small helpers shared by the Open MPI backend (internal to transport/mpi).
//
// - checkMpi(): turns an MPI error code into a TransportError with context.
//   The backend's communicators use MPI_ERRORS_RETURN, so every MPI call's
//   result goes through it.
// - ByteRun: a (count, datatype) pair that describes any number of
//   contiguous bytes, also above MPI's 2^31-1 `int` count limit (a derived
//   datatype of 1 GiB blocks plus a remainder). Both ends of a message build
//   it from their own sizes; the type signatures are plain byte sequences, so
//   they match whenever the sizes do, and a size mismatch is still reported
//   by MPI (short message) or as MPI_ERR_TRUNCATE (long message).
// - pollFor(): polls a readiness function until it is true or a timeout
//   passes. It spins for the first 50 us (low latency for short waits), then
//   yields until `busySeconds` have passed, then sleeps with growing pauses
//   (at most 250 us: a wake-up costs a few microseconds, so a long wait uses
//   a few percent of a core and reacts within 250 us). Open MPI moves a
//   large message only while its owners call into MPI (fragments through a
//   bounded shared-memory queue, socket buffers), so a wait for a large
//   transfer stays busy for the time the transfer may take:
//   busySecondsFor(bytes).
// - tcpEagerLimit(): Open MPI's btl_tcp_eager_limit (bytes, header
//   included) read through the MPI tool interface (MPI_T); 64 KiB, Open
//   MPI's default, when the TCP transport is not loaded or cannot be asked.
//
// Thread-safety: all helpers are reentrant; a ByteRun has one owner.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

namespace tetrad::mpi {

// Throws TransportError "rank R: WHAT failed: <MPI error string>" unless
// `code` is MPI_SUCCESS.
void checkMpi(int code, int rank, std::string_view what);
// The MPI library's text for an error code.
std::string mpiErrorString(int code);

class ByteRun {
 public:
  explicit ByteRun(size_t bytes);
  ~ByteRun();
  ByteRun(const ByteRun&) = delete;
  ByteRun& operator=(const ByteRun&) = delete;

  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  int count_ = 0;
  MPI_Datatype type_ = MPI_BYTE;
  bool derived_ = false;
};

// Open MPI's TCP eager limit; call after MPI is initialised.
size_t tcpEagerLimit();

// Bytes described by `status` (of a completed receive or a probe).
uint64_t statusBytes(const MPI_Status& status);

// Busy-polling window for a wait on a transfer of `bytes`: 2 ms plus the
// time the transfer takes at 100 MB/s.
inline double busySecondsFor(uint64_t bytes) {
  return 0.002 + static_cast<double>(bytes) / 100e6;
}

template <typename Ready>
bool pollFor(double timeoutSeconds, Ready&& ready, double busySeconds = 0.002) {
  using Clock = std::chrono::steady_clock;
  using std::chrono::microseconds;
  if (ready()) return true;
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(std::max(timeoutSeconds, 0.0)));
  const Clock::duration busy = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(busySeconds, 0.0)));
  while (true) {
    if (ready()) return true;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return ready();
    const Clock::duration elapsed = now - start;
    if (elapsed < microseconds(50)) continue;  // spin
    if (elapsed < busy) {
      std::this_thread::yield();
      continue;
    }
    Clock::duration pause =
        std::clamp<Clock::duration>(elapsed / 32, microseconds(20), microseconds(250));
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
  }
}

}  // namespace tetrad::mpi
