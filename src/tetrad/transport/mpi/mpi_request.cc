#include "tetrad/transport/mpi/mpi_request.h"

#include "tetrad/core/error.h"
#include "tetrad/transport/mpi/pieced_request.h"
#include "tetrad/transport/mpi/stall_poll.h"

namespace tetrad::mpi {

namespace {
// How long a cancelled receive may take to complete before it is released.
constexpr double kCancelGraceSeconds = 1.0;
}  // namespace

MpiRequest::MpiRequest(Transport& owner, MPI_Comm comm, Kind kind, int peer, Tag tag, void* buffer,
                       size_t bytes, bool countReceived)
    : owner_(owner),
      kind_(kind),
      peer_(peer),
      tag_(tag),
      bytes_(bytes),
      countReceived_(countReceived),
      buffer_(buffer),
      run_(bytes) {
  int code = kind == Kind::kSend ? MPI_Isend(buffer, run_.count(), run_.type(), peer,
                                             static_cast<int>(tag), comm, &request_)
                                 : MPI_Irecv(buffer, run_.count(), run_.type(), peer,
                                             static_cast<int>(tag), comm, &request_);
  if (code != MPI_SUCCESS) {
    checkMpi(code, owner.rank(),
             fmt::format("{} rank {} (tag {}, {} bytes)", verb(), peer, tag, bytes));
  }
}

MpiRequest::~MpiRequest() {
  if (request_ == MPI_REQUEST_NULL) return;
  try {
    if (kind_ == Kind::kRecv) {
      abandon(kCancelGraceSeconds);
    } else {
      // The caller's buffer is about to go away: let the send finish first.
      pollFor(
          owner_.timeout(),
          [this] {
            int flag = 0;
            MPI_Test(&request_, &flag, MPI_STATUS_IGNORE);
            return flag != 0 || request_ == MPI_REQUEST_NULL;
          },
          busySecondsFor(bytes_));
      if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
    }
  } catch (...) {
    // A destructor reports nothing; the owner did not wait for the result.
  }
}

bool MpiRequest::test() {
  if (error_) std::rethrow_exception(error_);
  if (done_) return true;
  int flag = 0;
  MPI_Status status{};
  int code = MPI_Test(&request_, &flag, &status);
  if (code != MPI_SUCCESS || flag) complete(code, status);
  return done_;
}

void MpiRequest::wait() {
  if (test()) return;
  if (pollReporting(
          owner_, owner_.timeout(), verb(), peer_, tag_, static_cast<int64_t>(bytes_),
          [this] { return test(); }, busySecondsFor(bytes_)))
    return;
  if (abandon(kCancelGraceSeconds)) return;
  try {
    throwTimeout();
  } catch (...) {
    error_ = std::current_exception();
    throw;
  }
}

void MpiRequest::complete(int code, const MPI_Status& status) {
  done_ = true;
  try {
    if (code != MPI_SUCCESS) {
      // Open MPI keeps a request that completed with an error.
      if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
      int errorClass = MPI_ERR_OTHER;
      MPI_Error_class(code, &errorClass);
      if (kind_ == Kind::kRecv && errorClass == MPI_ERR_TRUNCATE) {
        uint64_t actual = statusBytes(status);
        if (actual > bytes_) {
          TETRAD_FAIL(ProtocolError,
                      "rank {}: recv from rank {} (tag {}): expected {} bytes, got {} bytes",
                      owner_.rank(), peer_, tag_, bytes_, actual);
        }
        TETRAD_FAIL(ProtocolError,
                    "rank {}: recv from rank {} (tag {}): expected {} bytes, got a longer message",
                    owner_.rank(), peer_, tag_, bytes_);
      }
      checkMpi(code, owner_.rank(),
               fmt::format("{} rank {} (tag {}, {} bytes)", verb(), peer_, tag_, bytes_));
    }
    if (kind_ == Kind::kRecv) {
      uint64_t actual = statusBytes(status);
      const auto* received = static_cast<const std::byte*>(buffer_);
      if (rejectPieceHeaders_ && actual == kPieceHeaderBytes && isPieceHeader(received)) {
        // The header of a message sent in pieces: name its size.
        actual = pieceHeaderSize(received);
        TETRAD_FAIL(ProtocolError,
                    "rank {}: recv from rank {} (tag {}): expected {} bytes, got {} bytes",
                    owner_.rank(), peer_, tag_, bytes_, actual);
      }
      TETRAD_CHECK(actual == bytes_, ProtocolError,
                   "rank {}: recv from rank {} (tag {}): expected {} bytes, got {} bytes",
                   owner_.rank(), peer_, tag_, bytes_, actual);
      if (countReceived_) owner_.traffic().countReceived(peer_, actual);
    }
  } catch (...) {
    error_ = std::current_exception();
    throw;
  }
}

void MpiRequest::release() {
  try {
    abandon(kCancelGraceSeconds);
  } catch (...) {
    // The owner gave the request up: its result no longer matters.
  }
}

bool MpiRequest::abandon(double graceSeconds) {
  if (request_ == MPI_REQUEST_NULL) return done_;
  if (kind_ == Kind::kSend) {
    // Open MPI cannot cancel a send: let it complete in the background.
    MPI_Request_free(&request_);
    return false;
  }
  MPI_Cancel(&request_);
  int flag = 0;
  int code = MPI_SUCCESS;
  MPI_Status status{};
  pollFor(graceSeconds, [&] {
    code = MPI_Test(&request_, &flag, &status);
    return flag != 0 || code != MPI_SUCCESS;
  });
  if (code == MPI_SUCCESS && !flag) {
    MPI_Request_free(&request_);
    return false;
  }
  int cancelled = 0;
  MPI_Test_cancelled(&status, &cancelled);
  if (code == MPI_SUCCESS && cancelled) return false;
  // The message arrived before the cancel took effect: a normal completion.
  complete(code, status);
  return true;
}

void MpiRequest::throwTimeout() const {
  TETRAD_FAIL(TimeoutError, "rank {}: {} rank {} (tag {}, {} bytes) timed out after {} s",
              owner_.rank(), verb(), peer_, tag_, bytes_, owner_.timeout());
}

}  // namespace tetrad::mpi
