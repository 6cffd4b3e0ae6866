// Recursive-halving reduce-scatter (building_blocks.h, reduce_scatter.h).
//
// Cost for p = pof2 ranks and n bytes:
//   T = log2(p)·α + (p-1)/p·nβ + (p-1)/p·nγ
// Step k exchanges half of the current window (n/2, n/4, ...) with partner
// rank ^ (p/2^(k+1)): bandwidth-optimal and latency-logarithmic.
// Non-power-of-two (Thakur, Rabenseifner and Gropp 2005): with rem = p -
// pof2, ranks 2i and 2i+1 (i < rem) first exchange halves (2i keeps the
// lower half, 2i+1 the upper), add, and 2i+1 sends its reduced half to 2i,
// which then represents both: + 2α + nβ + n/2·γ. The pof2 participants own
// "superblocks" (the blocks of the ranks they represent, consecutive).
// Reduce-scatter then gives rank 2i+1 its block from rank 2i: + α + n/p·β.
// n counts wire bytes (2·count with a 16-bit WirePrecision).
// Sum order: a balanced tree over participants, leaves x[2i] + x[2i+1] or
// x[r].
#include <algorithm>

#include "tetrad/collectives/building_blocks.h"

namespace tetrad::detail {
namespace {

// The pairwise pre-step of the fold: afterwards rank 2i holds x[2i] +
// x[2i+1] and rank 2i+1 is done.
void foldPairs(Transport& transport, WireImage& image, Tag tag) {
  const int rank = transport.rank();
  const size_t half = image.size() / 2;
  const BlockRange lower{0, half};
  const BlockRange upper{half, image.size() - half};
  const bool even = rank % 2 == 0;
  const BlockRange keep = even ? lower : upper;
  const BlockRange give = even ? upper : lower;
  const int partner = even ? rank + 1 : rank - 1;
  {
    WireInbox inbox(image, keep.count);
    sendRecvAdd(transport, image, partner, give, inbox, partner, keep, tag);
  }
  if (even) {
    transport.recv(partner, tag + 1, image.bytes(upper));
    image.decode(upper);
  } else {
    image.encode(upper);
    transport.send(partner, tag + 1, image.bytes(upper));
  }
}

}  // namespace

void halvingReduceScatter(Transport& transport, const PowerOfTwoFold& fold, WireImage& image,
                          Tag tag) {
  const int rank = transport.rank();
  const size_t n = image.size();
  if (fold.folded(rank)) foldPairs(transport, image, tag);
  const int v = fold.participant(rank);
  if (v < 0 || fold.pof2 == 1) return;

  const size_t largestHalf =
      std::max(fold.span(n, 0, fold.pof2 / 2).count, fold.span(n, fold.pof2 / 2, fold.pof2).count);
  WireInbox inbox(image, largestHalf);
  int lo = 0;  // first participant of the current window of 2*mask participants
  for (int mask = fold.pof2 / 2; mask >= 1; mask /= 2) {
    const int partner = fold.rankOf(v ^ mask);
    const BlockRange lower = fold.span(n, lo, lo + mask);
    const BlockRange upper = fold.span(n, lo + mask, lo + 2 * mask);
    const bool keepLower = (v & mask) == 0;
    const BlockRange keep = keepLower ? lower : upper;
    const BlockRange give = keepLower ? upper : lower;
    if (!keepLower) lo += mask;
    sendRecvAdd(transport, image, partner, give, inbox, partner, keep, tag + 2);
  }
}

}  // namespace tetrad::detail
