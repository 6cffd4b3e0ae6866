#include "tetrad/transport/prefix_transport.h"

#include "tetrad/core/error.h"

namespace tetrad {

PrefixTransport::PrefixTransport(Transport& parent, int size)
    : Transport(parent.rank(), size, parent.timeout()), parent_(parent) {
  TETRAD_CHECK(size >= 1 && size <= parent.size() && parent.rank() < size, InvalidArgument,
               "rank {}: a view of the first {} of {} ranks must contain this rank", parent.rank(),
               size, parent.size());
  shareDiagnostics(parent);
}

void PrefixTransport::send(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "send");
  traffic().countSent(peer, data.size());
  parent_.send(peer, tag, data);
}

void PrefixTransport::recv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "recv");
  parent_.recv(peer, tag, data);
  traffic().countReceived(peer, data.size());
}

ByteBuffer PrefixTransport::recvMessage(int peer, Tag tag) {
  checkPeer(peer, "recvMessage");
  ByteBuffer bytes = parent_.recvMessage(peer, tag);
  traffic().countReceived(peer, bytes.size());
  return bytes;
}

Message PrefixTransport::recvAny(Tag tag) {
  Message message = parent_.recvAny(tag);
  TETRAD_CHECK(message.source < size(), ProtocolError,
               "rank {}: recvAny (tag {}) got a message from rank {}, outside the first {} ranks",
               rank(), tag, message.source, size());
  traffic().countReceived(message.source, message.bytes.size());
  return message;
}

RequestPtr PrefixTransport::isend(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "isend");
  traffic().countSent(peer, data.size());
  return parent_.isend(peer, tag, data);
}

RequestPtr PrefixTransport::irecv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "irecv");
  traffic().countReceived(peer, data.size());
  return parent_.irecv(peer, tag, data);
}

RequestPtr PrefixTransport::irecvConsume(int peer, Tag tag, MutableBytes staging,
                                         ConsumeBytes consume) {
  checkPeer(peer, "irecv");
  traffic().countReceived(peer, staging.size());
  return parent_.irecvConsume(peer, tag, staging, std::move(consume));
}

void PrefixTransport::nativeAllreduce(std::span<float> data, ReduceOp op) {
  TETRAD_CHECK(size() == parent_.size(), Unsupported,
               "rank {}: the native all-reduce runs on the whole world of {} ranks, not on the "
               "first {} (use another all-reduce algorithm with parameter servers)",
               rank(), parent_.size(), size());
  parent_.nativeAllreduce(data, op);
}

}  // namespace tetrad
