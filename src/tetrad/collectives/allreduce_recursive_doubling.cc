// Recursive-doubling all-reduce.
//
// Cost for p ranks (pof2 = 2^⌊log2 p⌋) and n bytes:
//   T = log2(pof2)·(α + nβ + nγ)                       when p = pof2
//   T = (log2(pof2) + 2)·α + (log2(pof2) + 2)·nβ + (log2(pof2) + 1)·nγ
//                                                      otherwise
// Every step exchanges the whole vector with the partner rank ^ 2^k:
// latency-optimal, so it wins for small messages; bandwidth term log2 p.
// n counts wire bytes (2·count with a 16-bit WirePrecision: β term halved).
// Non-power-of-two (as in MPICH): with rem = p - pof2, each odd rank
// 2i+1 < 2·rem first sends its vector to rank 2i, which adds it and takes
// part in the pof2-rank exchange; at the end rank 2i sends the result back.
// Sum order: a balanced tree over participants (pairs first, then pairs of
// pairs, ...), each participant leaf being x[2i] + x[2i+1] or x[r]; the
// result is bit-identical on every rank. 16-bit wire: before each exchange
// both partners round their own vector to the wire, so both add the same
// two rounded vectors (and stay identical); the result is rounded too.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad::detail {

void allreduceRecursiveDoubling(Transport& transport, std::span<float> data, ReduceOp op,
                                WirePrecision wire, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  WireImage image(transport, wire, data);
  const BlockRange all = image.all();
  if (p == 1) {
    if (image.compute()) finishReduction(data, op, p);
    image.round(all);
    return;
  }
  const PowerOfTwoFold fold(p);
  if (fold.folded(rank) && rank % 2 == 1) {
    image.encode(all);
    transport.send(rank - 1, tag, image.bytes());
    transport.recv(rank - 1, tag + 1, image.bytes());
    image.decode(all);
    return;
  }
  WireInbox inbox(image, data.size());
  if (fold.folded(rank)) {
    transport.recv(rank + 1, tag, inbox.buffer(all));
    inbox.addTo(all);
  }
  const int v = fold.participant(rank);
  for (int mask = 1; mask < fold.pof2; mask <<= 1) {
    const int partner = fold.rankOf(v ^ mask);
    image.round(all);
    sendRecv(transport, partner, image.bytes(), partner, inbox.buffer(all), tag + 2);
    inbox.addTo(all);
  }
  if (image.compute()) finishReduction(data, op, p);
  image.round(all);
  if (fold.folded(rank)) transport.send(rank + 1, tag + 1, image.bytes());
}

}  // namespace tetrad::detail
