// Recursive-doubling all-reduce.
//
// Cost for p ranks (pof2 = 2^⌊log2 p⌋) and n bytes:
//   T = log2(pof2)·(α + nβ + nγ)                       when p = pof2
//   T = (log2(pof2) + 2)·α + (log2(pof2) + 2)·nβ + (log2(pof2) + 1)·nγ
//                                                      otherwise
// Every step exchanges the whole vector with the partner rank ^ 2^k:
// latency-optimal, so it wins for small messages; bandwidth term log2 p.
// Non-power-of-two (as in MPICH): with rem = p - pof2, each odd rank
// 2i+1 < 2·rem first sends its vector to rank 2i, which adds it and takes
// part in the pof2-rank exchange; at the end rank 2i sends the result back.
// Sum order: a balanced tree over participants (pairs first, then pairs of
// pairs, ...), each participant leaf being x[2i] + x[2i+1] or x[r]; the
// result is bit-identical on every rank.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/collectives/scratch.h"

namespace tetrad::detail {

void allreduceRecursiveDoubling(Transport& transport, std::span<float> data, ReduceOp op, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  const bool compute = computesOnData(transport);
  if (p == 1) {
    if (compute) finishReduction(data, op, p);
    return;
  }
  const PowerOfTwoFold fold(p);
  MutableBytes bytes = asWritableBytes(data);
  Scratch scratch(compute ? data.size() : 0);
  std::span<float> incoming = compute ? scratch.span() : data;

  if (fold.folded(rank) && rank % 2 == 1) {
    transport.send(rank - 1, tag, ConstBytes(bytes));
    transport.recv(rank - 1, tag + 1, bytes);
    return;
  }
  if (fold.folded(rank)) {
    transport.recv(rank + 1, tag, asWritableBytes(incoming));
    if (compute) addInto(data, incoming);
  }
  const int v = fold.participant(rank);
  for (int mask = 1; mask < fold.pof2; mask <<= 1) {
    const int partner = fold.rankOf(v ^ mask);
    sendRecv(transport, partner, ConstBytes(bytes), partner, asWritableBytes(incoming), tag + 2);
    if (compute) addInto(data, incoming);
  }
  if (compute) finishReduction(data, op, p);
  if (fold.folded(rank)) transport.send(rank + 1, tag + 1, ConstBytes(bytes));
}

}  // namespace tetrad::detail
