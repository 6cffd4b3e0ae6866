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
// Sum order: a balanced tree over participants with leaves x[2i] + x[2i+1]
// or x[r]; the result is bit-identical on every rank.
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad::detail {

void allreduceRabenseifner(Transport& transport, std::span<float> data, ReduceOp op, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  const bool compute = computesOnData(transport);
  if (p == 1) {
    if (compute) finishReduction(data, op, p);
    return;
  }
  const PowerOfTwoFold fold(p);
  const size_t n = data.size();
  halvingReduceScatter(transport, fold, data, tag);  // tags tag .. tag + 2
  const int v = fold.participant(rank);
  if (v >= 0) {
    const BlockRange mine = fold.span(n, v, v + 1);
    if (compute) finishReduction(data.subspan(mine.offset, mine.count), op, p);
    std::vector<BlockRange> blocks(static_cast<size_t>(fold.pof2));
    for (int u = 0; u < fold.pof2; ++u) {
      const BlockRange b = fold.span(n, u, u + 1);
      blocks[u] = BlockRange{b.offset * sizeof(float), b.count * sizeof(float)};
    }
    doublingAllgather(transport, fold, asWritableBytes(data), blocks, tag + 3);
  }
  if (fold.folded(rank)) {
    if (rank % 2 == 0) {
      transport.send(rank + 1, tag + 4, asBytes(std::span<const float>(data)));
    } else {
      transport.recv(rank - 1, tag + 4, asWritableBytes(data));
    }
  }
}

}  // namespace tetrad::detail
