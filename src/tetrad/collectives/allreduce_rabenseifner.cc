// Rabenseifner all-reduce: recursive-halving reduce-scatter, then
// recursive-doubling all-gather.
//
// Cost for p = pof2 ranks and n bytes:
//   T = 2·log2(p)·α + 2(p-1)/p·nβ + (p-1)/p·nγ
// Bandwidth-optimal like the ring, but with a logarithmic latency term: the
// usual choice for medium and large messages when p is a power of two.
// Non-power-of-two (Thakur, Rabenseifner and Gropp 2005): ranks 2i, 2i+1
// (i < rem = p - pof2) pre-reduce by exchanging halves, 2i takes part for
// both, and sends the result to 2i+1 at the end:
//   + 3α + 2nβ + n/2·γ  (the halved fold, then one whole-vector send).
// n counts wire bytes (2·count with a 16-bit WirePrecision: β term halved).
// Sum order: a balanced tree over participants with leaves x[2i] + x[2i+1]
// or x[r]; the result is bit-identical on every rank. 16-bit wire: every
// half sent is rounded to the wire, and each participant rounds its
// finished block before the all-gather distributes it.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad::detail {

void allreduceRabenseifner(Transport& transport, std::span<float> data, ReduceOp op,
                           WirePrecision wire, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  WireImage image(transport, wire, data);
  if (p == 1) {
    if (image.compute()) finishReduction(data, op, p);
    image.round(image.all());
    return;
  }
  const PowerOfTwoFold fold(p);
  const size_t n = data.size();
  halvingReduceScatter(transport, fold, image, tag);  // tags tag .. tag + 2
  const int v = fold.participant(rank);
  if (v >= 0) {
    const BlockRange mine = fold.span(n, v, v + 1);
    if (image.compute()) finishReduction(data.subspan(mine.offset, mine.count), op, p);
    image.round(mine);  // this rank keeps exactly what the others receive
    std::vector<BlockRange> blocks(static_cast<size_t>(fold.pof2));
    for (int u = 0; u < fold.pof2; ++u) blocks[u] = image.byteRange(fold.span(n, u, u + 1));
    doublingAllgather(transport, fold, image.bytes(), blocks, tag + 3);
  }
  if (fold.folded(rank)) {
    if (rank % 2 == 0) {
      transport.send(rank + 1, tag + 4, image.bytes());
    } else {
      transport.recv(rank - 1, tag + 4, image.bytes());
    }
  }
  image.decode(image.all());
}

}  // namespace tetrad::detail
