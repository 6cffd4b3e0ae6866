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
// Thread-safety: send/recv/isend/irecv/recvMessage/recvAny may be called
// concurrently from the worker and its spawned tasks (MPI_THREAD_MULTIPLE);
// nativeAllreduce from one thread at a time, in the same order on all ranks.
#pragma once

#include <mpi.h>

#include <chrono>
#include <mutex>
#include <vector>

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
  // Waits for a collective request posted by the constructor.
  void waitCollective(MPI_Request& request, const char* what);
  int computeRanksPerNode();

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::chrono::steady_clock::time_point start_;
  int ranksPerNode_ = 1;
  Watchdog watchdog_;
  // Buffers of receives abandoned after a timeout while MPI may still write
  // into them; kept until the transport goes away.
  std::mutex abandonedMutex_;
  std::vector<ByteBuffer> abandoned_;
};

}  // namespace tetrad::mpi
