// sendRecv, sendRecvAdd and PowerOfTwoFold (building_blocks.h).
// Cost of sendRecv between two ranks with full-duplex links: α + mβ; of
// sendRecvAdd for k elements: α + k·b·β + k·b·γ (b bytes per wire element).
#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void sendRecv(Transport& transport, int sendPeer, ConstBytes out, int recvPeer, MutableBytes in,
              Tag tag) {
  RequestPtr receive = transport.irecv(recvPeer, tag, in);
  RequestPtr send = transport.isend(sendPeer, tag, out);
  receive->wait();
  send->wait();
}

void sendRecvAdd(Transport& transport, WireImage& image, int sendPeer, BlockRange out,
                 WireInbox& inbox, int recvPeer, BlockRange in, Tag tag, float divisor) {
  image.encode(out);
  // Posted in sendRecv's order: the receive first.
  RequestPtr receive =
      transport.irecvConsume(recvPeer, tag, inbox.buffer(in),
                             [&](ConstBytes received) { inbox.addFrom(in, received, divisor); });
  RequestPtr send = transport.isend(sendPeer, tag, image.bytes(out));
  receive->wait();
  send->wait();
}

PowerOfTwoFold::PowerOfTwoFold(int worldSize) : size(worldSize) {
  while (pof2 * 2 <= worldSize) pof2 *= 2;
  rem = worldSize - pof2;
}

BlockRange PowerOfTwoFold::span(size_t n, int v0, int v1) const {
  if (v0 >= v1) return BlockRange{blockRange(n, size, firstRank(v0)).offset, 0};
  const size_t begin = blockRange(n, size, firstRank(v0)).offset;
  const size_t end = blockRange(n, size, endRank(v1 - 1) - 1).end();
  return BlockRange{begin, end - begin};
}

}  // namespace tetrad::detail
