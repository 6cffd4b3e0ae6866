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
    : self_(self), blocks_(static_cast<size_t>((worldSize + kBlockPeers - 1) / kBlockPeers)) {}

TrafficCounters::~TrafficCounters() {
  for (std::atomic<PerPeer*>& block : blocks_) delete[] block.load();
}

TrafficCounters::PerPeer& TrafficCounters::counters(int peer) {
  std::atomic<PerPeer*>& slot = blocks_[static_cast<size_t>(peer / kBlockPeers)];
  PerPeer* block = slot.load(std::memory_order_acquire);
  if (block == nullptr) {
    // Two threads may race to allocate: the loser frees its block.
    PerPeer* fresh = new PerPeer[kBlockPeers];
    if (slot.compare_exchange_strong(block, fresh, std::memory_order_acq_rel)) {
      block = fresh;
    } else {
      delete[] fresh;
    }
  }
  return block[peer % kBlockPeers];
}

const TrafficCounters::PerPeer* TrafficCounters::find(int peer) const {
  const PerPeer* block = blocks_[static_cast<size_t>(peer / kBlockPeers)].load();
  return block ? &block[peer % kBlockPeers] : nullptr;
}

void TrafficCounters::countSent(int peer, uint64_t bytes, uint64_t messages) {
  if (peer == self_) return;
  PerPeer& c = counters(peer);
  c.bytesSent.fetch_add(bytes, std::memory_order_relaxed);
  c.messagesSent.fetch_add(messages, std::memory_order_relaxed);
}
void TrafficCounters::countReceived(int peer, uint64_t bytes, uint64_t messages) {
  if (peer == self_) return;
  PerPeer& c = counters(peer);
  c.bytesReceived.fetch_add(bytes, std::memory_order_relaxed);
  c.messagesReceived.fetch_add(messages, std::memory_order_relaxed);
}
uint64_t TrafficCounters::bytesSentTo(int peer) const {
  const PerPeer* c = find(peer);
  return c ? c->bytesSent.load() : 0;
}
uint64_t TrafficCounters::bytesReceivedFrom(int peer) const {
  const PerPeer* c = find(peer);
  return c ? c->bytesReceived.load() : 0;
}
uint64_t TrafficCounters::messagesSentTo(int peer) const {
  const PerPeer* c = find(peer);
  return c ? c->messagesSent.load() : 0;
}
uint64_t TrafficCounters::messagesReceivedFrom(int peer) const {
  const PerPeer* c = find(peer);
  return c ? c->messagesReceived.load() : 0;
}

template <typename Field>
uint64_t TrafficCounters::sum(Field field) const {
  uint64_t total = 0;
  for (const std::atomic<PerPeer*>& slot : blocks_) {
    const PerPeer* block = slot.load();
    if (block == nullptr) continue;
    for (int i = 0; i < kBlockPeers; ++i) total += (block[i].*field).load();
  }
  return total;
}
uint64_t TrafficCounters::totalBytesSent() const {
  return sum(&PerPeer::bytesSent);
}
uint64_t TrafficCounters::totalBytesReceived() const {
  return sum(&PerPeer::bytesReceived);
}
uint64_t TrafficCounters::totalMessagesSent() const {
  return sum(&PerPeer::messagesSent);
}
uint64_t TrafficCounters::totalMessagesReceived() const {
  return sum(&PerPeer::messagesReceived);
}
void TrafficCounters::reset() {
  for (std::atomic<PerPeer*>& slot : blocks_) {
    PerPeer* block = slot.load();
    if (block == nullptr) continue;
    for (int i = 0; i < kBlockPeers; ++i) {
      block[i].bytesSent = 0;
      block[i].bytesReceived = 0;
      block[i].messagesSent = 0;
      block[i].messagesReceived = 0;
    }
  }
}

Transport::Transport(int rank, int size, double timeoutSeconds)
    : rank_(rank),
      size_(size),
      timeoutSeconds_(timeoutSeconds),
      traffic_(size, rank),
      diagnostics_(std::make_shared<Diagnostics>()) {}

namespace {

// irecvConsume's default: an irecv into the staging buffer, then `consume`.
class StagedReceive final : public Request {
 public:
  StagedReceive(RequestPtr receive, ConstBytes staging, Transport::ConsumeBytes consume,
                bool payload)
      : receive_(std::move(receive)),
        staging_(staging),
        consume_(std::move(consume)),
        payload_(payload) {}
  void wait() override {
    if (done_) return;
    receive_->wait();
    finish();
  }
  bool test() override {
    if (done_) return true;
    if (!receive_->test()) return false;
    finish();
    return true;
  }

 private:
  void finish() {
    done_ = true;
    if (payload_) consume_(staging_);
  }
  RequestPtr receive_;
  ConstBytes staging_;
  Transport::ConsumeBytes consume_;
  bool payload_;
  bool done_ = false;
};

}  // namespace

RequestPtr Transport::irecvConsume(int peer, Tag tag, MutableBytes staging, ConsumeBytes consume) {
  return std::make_unique<StagedReceive>(irecv(peer, tag, staging), staging, std::move(consume),
                                         carriesPayload());
}

void Transport::nativeAllreduce(std::span<float>, ReduceOp) {
  TETRAD_FAIL(Unsupported, "the '{}' engine has no native all-reduce (use --cluster mpi)",
              engine());
}

void Transport::countTraffic(int peer, uint64_t bytesSent, uint64_t messagesSent,
                             uint64_t bytesReceived, uint64_t messagesReceived) {
  if (messagesSent > 0) traffic_.countSent(peer, bytesSent, messagesSent);
  if (messagesReceived > 0) traffic_.countReceived(peer, bytesReceived, messagesReceived);
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
