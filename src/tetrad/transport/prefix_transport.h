// PrefixTransport: the first `size` ranks of a world, seen as a world of
// their own (an MPI communicator split, for one contiguous group).
//
// With dedicated parameter servers the world holds W workers (ranks 0..W-1)
// and K servers (ranks W..W+K-1); collectives among workers (evaluation,
// model broadcast, statistics) run on a PrefixTransport of size W so that the
// servers need not take part. Rank ids are the same in both views.
//
// Every call is forwarded to the parent transport, whose traffic counters see
// all traffic; this view's own counters see only the traffic through it.
// Only ranks below `size` may build one.
//
// Thread-safety: as the parent.
#pragma once

#include "tetrad/transport/transport.h"

namespace tetrad {

class PrefixTransport final : public Transport {
 public:
  PrefixTransport(Transport& parent, int size);

  void send(int peer, Tag tag, ConstBytes data) override;
  void recv(int peer, Tag tag, MutableBytes data) override;
  ByteBuffer recvMessage(int peer, Tag tag) override;
  Message recvAny(Tag tag) override;
  RequestPtr isend(int peer, Tag tag, ConstBytes data) override;
  RequestPtr irecv(int peer, Tag tag, MutableBytes data) override;
  RequestPtr irecvConsume(int peer, Tag tag, MutableBytes staging, ConsumeBytes consume) override;

  double now() const override { return parent_.now(); }
  void compute(double seconds) override { parent_.compute(seconds); }
  void sleepFor(double seconds) override { parent_.sleepFor(seconds); }
  void yieldToPeers() override { parent_.yieldToPeers(); }
  TaskPtr spawn(std::string name, std::function<void()> body) override {
    return parent_.spawn(std::move(name), std::move(body));
  }
  LocalQueuePtr makeQueue(std::string name) override { return parent_.makeQueue(std::move(name)); }
  bool carriesPayload() const override { return parent_.carriesPayload(); }
  std::string engine() const override { return parent_.engine(); }
  bool simulatedClock() const override { return parent_.simulatedClock(); }
  int ranksPerNode() const override { return parent_.ranksPerNode(); }
  // The engine's all-reduce runs on the whole world: only when the view is it.
  void nativeAllreduce(std::span<float> data, ReduceOp op) override;
  AnalyticNetwork* analytic() override { return parent_.analytic(); }
  void countTraffic(int peer, uint64_t bytesSent, uint64_t messagesSent, uint64_t bytesReceived,
                    uint64_t messagesReceived) override {
    Transport::countTraffic(peer, bytesSent, messagesSent, bytesReceived, messagesReceived);
    parent_.countTraffic(peer, bytesSent, messagesSent, bytesReceived, messagesReceived);
  }

 private:
  Transport& parent_;
};

}  // namespace tetrad
