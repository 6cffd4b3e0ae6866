// Recursive-doubling all-gather (building_blocks.h, allgather.h).
//
// Cost for p = pof2 ranks and n bytes in all:
//   T = log2(p)·α + (p-1)/p·nβ
// Step k exchanges the 2^k blocks gathered so far with partner rank ^ 2^k.
// Non-power-of-two: each odd rank 2i+1 < 2·rem (rem = p - pof2) first sends
// its block to rank 2i, the pof2 participants run the exchange on
// "superblocks", and rank 2i finally sends the whole result to 2i+1:
// + 2α + (n/p + n)β.
#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {

void doublingAllgather(Transport& transport, const PowerOfTwoFold& fold, MutableBytes data,
                       std::span<const BlockRange> blocks, Tag tag) {
  const int v = fold.participant(transport.rank());
  if (v < 0) return;
  auto window = [&](int first, int count) {
    const size_t begin = blocks[first].offset;
    return data.subspan(begin, blocks[first + count - 1].end() - begin);
  };
  for (int mask = 1; mask < fold.pof2; mask <<= 1) {
    const int partner = v ^ mask;
    const int partnerRank = fold.rankOf(partner);
    sendRecv(transport, partnerRank, ConstBytes(window(v & ~(mask - 1), mask)), partnerRank,
             window(partner & ~(mask - 1), mask), tag);
  }
}

void allgathervRecursiveDoubling(Transport& transport, MutableBytes data,
                                 std::span<const BlockRange> blocks, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  if (p == 1) return;
  const PowerOfTwoFold fold(p);
  if (fold.folded(rank) && rank % 2 == 1) {
    transport.send(rank - 1, tag,
                   ConstBytes(data.subspan(blocks[rank].offset, blocks[rank].count)));
    transport.recv(rank - 1, tag + 2, data);
    return;
  }
  if (fold.folded(rank)) {
    transport.recv(rank + 1, tag, data.subspan(blocks[rank + 1].offset, blocks[rank + 1].count));
  }
  std::vector<BlockRange> superblocks(static_cast<size_t>(fold.pof2));
  for (int v = 0; v < fold.pof2; ++v) {
    const size_t begin = blocks[fold.firstRank(v)].offset;
    superblocks[v] = BlockRange{begin, blocks[fold.endRank(v) - 1].end() - begin};
  }
  doublingAllgather(transport, fold, data, superblocks, tag + 1);
  if (fold.folded(rank)) transport.send(rank + 1, tag + 2, ConstBytes(data));
}

}  // namespace tetrad::detail
