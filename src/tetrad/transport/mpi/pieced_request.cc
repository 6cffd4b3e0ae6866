#include "tetrad/transport/mpi/pieced_request.h"

#include <algorithm>
#include <cstring>

#include "tetrad/core/error.h"

namespace tetrad::mpi {

bool isPieceHeader(const std::byte* bytes) {
  uint64_t magic = 0;
  std::memcpy(&magic, bytes, sizeof magic);
  return magic == kPieceMagic;
}

uint64_t pieceHeaderSize(const std::byte* bytes) {
  uint64_t size = 0;
  std::memcpy(&size, bytes + sizeof(uint64_t), sizeof size);
  return size;
}

PiecedRequest::PiecedRequest(Transport& owner, MPI_Comm comm, MPI_Comm pieceComm, Kind kind,
                             int peer, Tag tag, std::byte* buffer, size_t bytes, size_t pieceBytes)
    : owner_(owner), kind_(kind), peer_(peer), tag_(tag), bytes_(bytes) {
  if (kind == Kind::kSend) header_ = {kPieceMagic, bytes};
  headerRequest_ = std::make_unique<MpiRequest>(owner, comm, kind, peer, tag, header_.data(),
                                                kPieceHeaderBytes, /*countReceived=*/false);
  postPieces(pieceComm, buffer, pieceBytes);
}

PiecedRequest::PiecedRequest(Transport& owner, MPI_Comm pieceComm, int peer, Tag tag,
                             std::byte* buffer, size_t bytes, size_t pieceBytes)
    : owner_(owner), kind_(Kind::kRecv), peer_(peer), tag_(tag), bytes_(bytes) {
  postPieces(pieceComm, buffer, pieceBytes);
}

void PiecedRequest::postPieces(MPI_Comm pieceComm, std::byte* buffer, size_t pieceBytes) {
  TETRAD_CHECK(pieceBytes > 0, InvalidArgument, "rank {}: pieces of 0 bytes", owner_.rank());
  pieces_.reserve((bytes_ + pieceBytes - 1) / pieceBytes);
  try {
    for (size_t offset = 0; offset < bytes_; offset += pieceBytes) {
      pieces_.push_back(std::make_unique<MpiRequest>(owner_, pieceComm, kind_, peer_, tag_,
                                                     buffer + offset,
                                                     std::min(pieceBytes, bytes_ - offset),
                                                     /*countReceived=*/false));
    }
  } catch (...) {
    releaseAll();
    throw;
  }
}

PiecedRequest::~PiecedRequest() {
  if (done_ || error_) {
    releaseAll();
    return;
  }
  try {
    if (kind_ == Kind::kSend) {
      // The caller's buffer is about to go away: let the sends finish first.
      pollFor(
          owner_.timeout(),
          [this] {
            if (headerRequest_ && headerRequest_->test()) headerRequest_.reset();
            while (completed_ < pieces_.size() && pieces_[completed_]->test()) ++completed_;
            return !headerRequest_ && completed_ == pieces_.size();
          },
          busySecondsFor(bytes_));
    }
  } catch (...) {
    // A destructor reports nothing; the owner did not wait for the result.
  }
  releaseAll();
}

void PiecedRequest::releaseAll() {
  if (headerRequest_) headerRequest_->release();
  for (size_t i = completed_; i < pieces_.size(); ++i) pieces_[i]->release();
}

void PiecedRequest::checkHeader() const {
  TETRAD_CHECK(header_[0] == kPieceMagic, ProtocolError,
               "rank {}: recv from rank {} (tag {}): expected {} bytes, got a {}-byte message",
               owner_.rank(), peer_, tag_, bytes_, kPieceHeaderBytes);
  TETRAD_CHECK(header_[1] == bytes_, ProtocolError,
               "rank {}: recv from rank {} (tag {}): expected {} bytes, got {} bytes",
               owner_.rank(), peer_, tag_, bytes_, header_[1]);
}

bool PiecedRequest::test() {
  if (error_) std::rethrow_exception(error_);
  if (done_) return true;
  try {
    if (headerRequest_) {
      bool arrived = false;
      try {
        arrived = headerRequest_->test();
      } catch (const ProtocolError& e) {
        // Another message where the header belongs: a size mismatch.
        TETRAD_FAIL(ProtocolError,
                    "rank {}: recv from rank {} (tag {}): expected {} bytes, got a message of "
                    "another size ({})",
                    owner_.rank(), peer_, tag_, bytes_, e.what());
      }
      if (!arrived) return false;
      if (kind_ == Kind::kRecv) checkHeader();
      headerRequest_.reset();
    }
    while (completed_ < pieces_.size() && pieces_[completed_]->test()) ++completed_;
    if (completed_ < pieces_.size()) return false;
    done_ = true;
    if (kind_ == Kind::kRecv) owner_.traffic().countReceived(peer_, bytes_);
    return true;
  } catch (...) {
    error_ = std::current_exception();
    releaseAll();
    throw;
  }
}

void PiecedRequest::wait() {
  if (test()) return;
  if (pollFor(
          owner_.timeout(), [this] { return test(); }, busySecondsFor(bytes_)))
    return;
  try {
    TETRAD_FAIL(TimeoutError, "rank {}: {} rank {} (tag {}, {} bytes) timed out after {} s",
                owner_.rank(), verb(), peer_, tag_, bytes_, owner_.timeout());
  } catch (...) {
    error_ = std::current_exception();
    releaseAll();
    throw;
  }
}

}  // namespace tetrad::mpi
