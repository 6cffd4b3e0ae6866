#include "tetrad/transport/transport.h"

#include "tetrad/core/error.h"
#include "tetrad/transport/diagnostics.h"

namespace tetrad {

void waitAll(std::vector<RequestPtr>& requests) {
  for (RequestPtr& request : requests) {
    if (request) request->wait();
  }
}

TrafficCounters::TrafficCounters(int worldSize, int self)
    : self_(self), peers_(static_cast<size_t>(worldSize)) {}

void TrafficCounters::countSent(int peer, uint64_t bytes) {
  if (peer == self_) return;
  peers_[peer].bytesSent.fetch_add(bytes, std::memory_order_relaxed);
  peers_[peer].messagesSent.fetch_add(1, std::memory_order_relaxed);
}
void TrafficCounters::countReceived(int peer, uint64_t bytes) {
  if (peer == self_) return;
  peers_[peer].bytesReceived.fetch_add(bytes, std::memory_order_relaxed);
  peers_[peer].messagesReceived.fetch_add(1, std::memory_order_relaxed);
}
uint64_t TrafficCounters::bytesSentTo(int peer) const {
  return peers_[peer].bytesSent.load();
}
uint64_t TrafficCounters::bytesReceivedFrom(int peer) const {
  return peers_[peer].bytesReceived.load();
}
uint64_t TrafficCounters::messagesSentTo(int peer) const {
  return peers_[peer].messagesSent.load();
}
uint64_t TrafficCounters::messagesReceivedFrom(int peer) const {
  return peers_[peer].messagesReceived.load();
}
uint64_t TrafficCounters::totalBytesSent() const {
  uint64_t total = 0;
  for (const PerPeer& p : peers_) total += p.bytesSent.load();
  return total;
}
uint64_t TrafficCounters::totalBytesReceived() const {
  uint64_t total = 0;
  for (const PerPeer& p : peers_) total += p.bytesReceived.load();
  return total;
}
uint64_t TrafficCounters::totalMessagesSent() const {
  uint64_t total = 0;
  for (const PerPeer& p : peers_) total += p.messagesSent.load();
  return total;
}
uint64_t TrafficCounters::totalMessagesReceived() const {
  uint64_t total = 0;
  for (const PerPeer& p : peers_) total += p.messagesReceived.load();
  return total;
}
void TrafficCounters::reset() {
  for (PerPeer& p : peers_) {
    p.bytesSent = 0;
    p.bytesReceived = 0;
    p.messagesSent = 0;
    p.messagesReceived = 0;
  }
}

Transport::Transport(int rank, int size, double timeoutSeconds)
    : rank_(rank),
      size_(size),
      timeoutSeconds_(timeoutSeconds),
      traffic_(size, rank),
      diagnostics_(std::make_shared<Diagnostics>()) {}

void Transport::nativeAllreduce(std::span<float>, ReduceOp) {
  TETRAD_FAIL(Unsupported, "the '{}' engine has no native all-reduce (use --cluster mpi)",
              engine());
}

void Transport::checkPeer(int peer, const char* operation) const {
  TETRAD_CHECK(peer >= 0 && peer < size_, InvalidArgument,
               "rank {}: {} with invalid peer {} (world size {})", rank_, operation, peer, size_);
}

void Transport::checkTag(Tag tag, const char* operation) const {
  TETRAD_CHECK(tag < kMaxUserTag, InvalidArgument, "rank {}: {} with reserved tag {}", rank_,
               operation, tag);
}

}  // namespace tetrad
