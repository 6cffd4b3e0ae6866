// PiecedRequest: one large point-to-point message of the Open MPI backend,
// cut into pieces that each stay under the TCP transport's eager limit
// (internal to transport/mpi).
//
// Why: Open MPI's TCP transport sends a message above its eager limit
// (btl_tcp_eager_limit, 64 KiB by default) with a rendezvous: the
// receiver's acknowledgement must come back before the bulk data moves.
// Two ranks share one TCP connection, so when both send large messages to
// each other (every step of a ring all-reduce on 2 ranks), each side's
// acknowledgement waits behind the other side's bulk data and the two
// directions take turns: ring all-reduce took 2.1x its alpha-beta time on a
// 1 Gbit/s link. Pieces under the eager limit need no handshake, and all of
// them are posted at once, so both directions stream together with Open
// MPI's defaults.
//
// Wire format of a message of n bytes in pieces of P bytes:
//   1. a header of kPieceHeaderBytes on the transport's communicator with
//      the user's tag: {kPieceMagic, n} as two uint64 values;
//   2. ceil(n / P) pieces on a second communicator with the same tag, P
//      bytes each, the last one the rest.
// The header travels in the user tag's stream, so messages of one (peer,
// tag) keep MPI's order. A receiver that knows n posts the header and every
// piece at once; a header with another size, or another message where a
// header belongs, is a ProtocolError naming both sizes. Only the header
// and pieces of one message may be posted at a time per transport (the
// caller holds MpiTransport's posting mutex), so pieces of two messages to
// one (peer, tag) never interleave. Traffic counters see n, once.
//
// Timeouts, cancellation and buffer lifetime are those of MpiRequest, for
// the message as a whole: wait() gives up after the transport's timeout and
// releases every piece still pending.
//
// Thread-safety: one owner thread per request.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "tetrad/transport/mpi/mpi_request.h"
#include "tetrad/transport/transport.h"

namespace tetrad::mpi {

constexpr uint64_t kPieceMagic = 0x7465747261645043ull;  // "tetradPC"
constexpr size_t kPieceHeaderBytes = 2 * sizeof(uint64_t);

// True when `bytes` (a plain message of kPieceHeaderBytes) is a header.
bool isPieceHeader(const std::byte* bytes);
// The size announced by a header.
uint64_t pieceHeaderSize(const std::byte* bytes);

class PiecedRequest final : public Request {
 public:
  using Kind = MpiRequest::Kind;

  // Posts the header and every piece. `pieceComm` carries the pieces.
  PiecedRequest(Transport& owner, MPI_Comm comm, MPI_Comm pieceComm, Kind kind, int peer, Tag tag,
                std::byte* buffer, size_t bytes, size_t pieceBytes);
  // A receive whose header was already taken (by a matched probe): posts
  // the pieces only.
  PiecedRequest(Transport& owner, MPI_Comm pieceComm, int peer, Tag tag, std::byte* buffer,
                size_t bytes, size_t pieceBytes);
  ~PiecedRequest() override;

  void wait() override;
  bool test() override;

 private:
  void postPieces(MPI_Comm pieceComm, std::byte* buffer, size_t pieceBytes);
  // Checks the received header against the expected size.
  void checkHeader() const;
  void releaseAll();
  const char* verb() const { return kind_ == Kind::kSend ? "send to" : "recv from"; }

  Transport& owner_;
  Kind kind_;
  int peer_;
  Tag tag_;
  size_t bytes_;
  std::array<uint64_t, 2> header_{};
  std::unique_ptr<MpiRequest> headerRequest_;  // null once checked, or when probed
  std::vector<std::unique_ptr<MpiRequest>> pieces_;
  size_t completed_ = 0;  // pieces_[0, completed_) are done
  bool done_ = false;
  std::exception_ptr error_;
};

}  // namespace tetrad::mpi
