// MpiTransport: the Open MPI implementation of Transport (internal to
// transport/mpi; everything above sees only Transport, via launch()).
//
// One per rank and launch. Its constructor is collective over
// MPI_COMM_WORLD: it duplicates WORLD (so that no two launches, and no other
// library, share messages with it) and learns which ranks share a node.
// Messages are MPI messages on that communicator with the user's tag, so
// MPI's non-overtaking rule gives the per-(peer, tag) order. Every wait polls
// with the transport's timeout (see mpi_request.h); the one blocking MPI call,
// MPI_Allreduce in nativeAllreduce(), is guarded by a watchdog that aborts
// the job if it runs past the timeout. Payloads larger than 2 GiB are sent as
// one message with a derived datatype (see ByteRun in mpi_util.h). Traffic
// counters see point-to-point payloads only: nativeAllreduce() moves bytes
// inside MPI, which does not report them.
//
// ranksPerNode(): ranks are grouped by host name (MPI_Get_processor_name);
// the value is the number of ranks per host when every host holds the same
// number of consecutive ranks, and 1 otherwise. The environment variable
// TETRAD_MPI_RANKS_PER_NODE=K (K divides the world size) overrides it, e.g.
// to exercise hierarchical collectives on one machine.
//
// Pieces (see pieced_request.h): a message of more than P bytes to a rank
// on another host is cut into pieces of P bytes that stay under Open MPI's
// TCP eager limit, so that both directions of a link carry data at once with
// Open MPI's defaults. P is btl_tcp_eager_limit less 128 bytes of headers
// (the smallest over all ranks). TETRAD_MPI_PIECE_BYTES=K overrides it: K
// bytes to every other rank, also on the same host (K = 0: never). It must be
// the same on every rank (checked when the transport starts).
//
// Thread-safety: send/recv/isend/irecv/recvMessage/recvAny may be called
// concurrently from the worker and its spawned tasks (MPI_THREAD_MULTIPLE);
// nativeAllreduce from one thread at a time, in the same order on all ranks.
#pragma once

#include <mpi.h>

#include <chrono>
#include <mutex>
#include <vector>

#include "tetrad/transport/mpi/mpi_request.h"
#include "tetrad/transport/mpi/watchdog.h"
#include "tetrad/transport/transport.h"

namespace tetrad::mpi {

class MpiTransport final : public Transport {
 public:
  // Collective over MPI_COMM_WORLD; MPI must be initialised (MpiRuntime).
  // Throws TimeoutError if the other ranks do not arrive within the timeout.
  explicit MpiTransport(double timeoutSeconds);
  ~MpiTransport() override;

  // Releases the communicator after a successful run (local in Open MPI).
  // Not called after a failure: pending operations may still refer to it.
  void close();

  void send(int peer, Tag tag, ConstBytes data) override;
  void recv(int peer, Tag tag, MutableBytes data) override;
  ByteBuffer recvMessage(int peer, Tag tag) override;
  Message recvAny(Tag tag) override;
  RequestPtr isend(int peer, Tag tag, ConstBytes data) override;
  RequestPtr irecv(int peer, Tag tag, MutableBytes data) override;

  double now() const override;
  void compute(double seconds) override {}
  void sleepFor(double seconds) override;
  TaskPtr spawn(std::string name, std::function<void()> body) override;
  LocalQueuePtr makeQueue(std::string name) override;

  std::string engine() const override { return "mpi"; }
  int ranksPerNode() const override { return ranksPerNode_; }
  void nativeAllreduce(std::span<float> data, ReduceOp op) override;

 private:
  // Probes for a message from `source` (or MPI_ANY_SOURCE) and receives it.
  Message probeAndReceive(int source, Tag tag, const char* operation);
  // Receives a message matched by MPI_Improbe (traffic not counted).
  Message receiveMatched(MPI_Message& message, const MPI_Status& status,
                         std::chrono::steady_clock::time_point start, const char* operation,
                         Tag tag);
  // Waits for a collective request posted by the constructor.
  void waitCollective(MPI_Request& request, const char* what);
  // Learns ranksPerNode_ and the piece plan (pieceBytes_, piecesTo_).
  void learnLayout();
  // True when a message of `bytes` to or from `peer` travels in pieces.
  bool usesPieces(int peer, size_t bytes) const {
    return pieceBytes_ > 0 && bytes > pieceBytes_ && piecesTo_[static_cast<size_t>(peer)];
  }
  RequestPtr post(MpiRequest::Kind kind, int peer, Tag tag, std::byte* data, size_t bytes);

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm pieceComm_ = MPI_COMM_NULL;  // the pieces of large messages
  size_t pieceBytes_ = 0;               // 0: no pieces
  std::vector<char> piecesTo_;          // per peer: pieces on
  // Held while the header and pieces of one message are posted (and while
  // probing where a header may come), so two messages never interleave.
  std::mutex postMutex_;
  std::chrono::steady_clock::time_point start_;
  int ranksPerNode_ = 1;
  Watchdog watchdog_;
  // Buffers of receives abandoned after a timeout while MPI may still write
  // into them; kept until the transport goes away.
  std::mutex abandonedMutex_;
  std::vector<ByteBuffer> abandoned_;
};

}  // namespace tetrad::mpi
