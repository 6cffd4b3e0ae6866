// PyTransport: a tetrad Transport whose messages travel through a Python
// object, so that tetrad's own protocols (all-gather of packets, majority
// vote, gTop-k's tree, PowerSGD's all-reduces, the ring all-reduce with a
// 16-bit wire) run unchanged over torch.distributed send/recv.
//
// The Python endpoint (tetrad/_dist_endpoint.py: DistEndpoint) provides
//   isend(peer, tag, view) -> handle with wait() and is_completed()
//   irecv(peer, tag, view) -> handle with wait() and is_completed(); the
//       message must have exactly len(view) bytes (else wait() raises)
//   recv_message(peer, tag) -> bytes-like (a message of any size)
// where `view` is a memoryview of this transport's buffer, valid until the
// handle is waited for (the Transport contract: spans outlive requests).
// Peers are ranks of the endpoint's process group.
//
// Traffic counters count the payload bytes, as every engine does; the
// endpoint's own framing (an 8-byte length per message) is not counted.
// recvAny, spawn and makeQueue are not offered (Unsupported): the compress
// layer's protocols do not use them.
//
// Threads: every call acquires the GIL; the caller may hold it or not (the
// module releases it around tetrad calls). One tetrad call at a time per
// transport, like any Transport.
#pragma once

#include <pybind11/pybind11.h>

#include "tetrad/transport/transport.h"

namespace tetrad::python {

class PyTransport final : public Transport {
 public:
  PyTransport(pybind11::object endpoint, int rank, int size, double timeoutSeconds);
  ~PyTransport() override;

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
  std::string engine() const override { return "torch.distributed"; }

 private:
  pybind11::object endpoint_;
};

}  // namespace tetrad::python
