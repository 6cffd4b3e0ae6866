// MpiRequest: one pending MPI_Isend or MPI_Irecv of the Open MPI backend
// (internal to transport/mpi).
//
// wait() polls MPI_Test (see pollFor in mpi_util.h) until the operation
// completes or the transport's timeout passes; a timeout throws TimeoutError
// naming this rank, the peer, the tag and the size. On timeout a receive is
// cancelled (if the message arrived meanwhile, it completes normally); a send
// cannot be cancelled in Open MPI, so it is released to complete in the
// background (MPI_Request_free) and its buffer must outlive the peer's
// receive. A completed receive checks the size (ProtocolError naming peer,
// tag, expected and actual bytes) and counts its bytes towards the peer.
// Sends are counted by the transport when posted.
//
// Destroying a request that is still pending cancels a receive and waits (up
// to the timeout) for a send, so MPI never touches a freed buffer afterwards.
//
// A request made with countReceived = false (a piece of a larger message,
// see pieced_request.h) leaves the traffic counters to its owner.
//
// Thread-safety: one owner thread per request.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>

#include "tetrad/transport/mpi/mpi_util.h"
#include "tetrad/transport/transport.h"

namespace tetrad::mpi {

class MpiRequest final : public Request {
 public:
  enum class Kind { kSend, kRecv };

  // Posts the operation on `comm`. `owner` provides rank, timeout and
  // traffic counters, and must outlive the request.
  MpiRequest(Transport& owner, MPI_Comm comm, Kind kind, int peer, Tag tag, void* buffer,
             size_t bytes, bool countReceived = true);
  ~MpiRequest() override;

  void wait() override;
  bool test() override;
  // For a plain receive from a peer that gets pieced messages: a piece
  // header received instead (of a larger message, see pieced_request.h) is
  // a ProtocolError naming that message's size. Call right after
  // construction.
  void rejectPieceHeaders() { rejectPieceHeaders_ = true; }
  // Gives a pending request up without waiting: cancels a receive, releases
  // a send to complete in the background. Never throws.
  void release();

 private:
  // Handles a completed MPI request (flag set by MPI_Test) or an error code.
  void complete(int code, const MPI_Status& status);
  // Cancels or releases the pending MPI request after a timeout; returns
  // true if it turned out to have completed normally.
  bool abandon(double graceSeconds);
  [[noreturn]] void throwTimeout() const;
  const char* verb() const { return kind_ == Kind::kSend ? "send to" : "recv from"; }

  Transport& owner_;
  Kind kind_;
  int peer_;
  Tag tag_;
  size_t bytes_;
  bool countReceived_;
  bool rejectPieceHeaders_ = false;
  void* buffer_;
  ByteRun run_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  bool done_ = false;
  std::exception_ptr error_;
};

}  // namespace tetrad::mpi
