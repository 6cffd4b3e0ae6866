// Building blocks of the collectives (internal to collectives/).
//
// The public collectives (allreduce.h, allgather.h, broadcast.h,
// reduce_scatter.h, barrier.h) are compositions of the group-level
// algorithms declared here, one per .cc file, each of which opens with its
// α–β cost. They run on a Group (group.h) so that hierarchical all-reduce can
// reuse them on nodes and on node leaders. Every function here assumes the
// caller checked arguments; all members of the group must call it with the
// same sizes and tag. Payload-free transports: no arithmetic or copies on
// received data, no scratch (reduce_ops.h).
//
// The reductions run on a WireImage (wire_image.h), so that each of them
// works at any WirePrecision: blocks are encoded to the wire by the sender,
// received by a WireInbox and added in float32. With a 16-bit wire each
// message carries the partial sum rounded to 16 bits; whoever finishes a
// block rounds it too (WireImage::round) before distributing it, so every
// rank ends with the same, wire-representable values.
//
// Thread-safety: one call at a time per (transport, tag).
#pragma once

#include <span>
#include <vector>

#include "tetrad/collectives/group.h"
#include "tetrad/collectives/partition.h"
#include "tetrad/collectives/wire_image.h"
#include "tetrad/transport/transport.h"

namespace tetrad::detail {

// Sends `out` to `sendPeer` and receives `in` from `recvPeer` concurrently
// (both posted before either is waited on, so that two ranks exchanging
// large messages never deadlock). Peers are world ranks.
void sendRecv(Transport& transport, int sendPeer, ConstBytes out, int recvPeer, MutableBytes in,
              Tag tag);

// Sends the elements `out` of image's vector to `sendPeer` (encoded to the
// wire) while receiving the elements `in` from `recvPeer`, and adds them to
// the vector in float32 as they are handed over (Transport::irecvConsume
// into WireInbox::addFrom: the simulator adds straight from the sender's
// buffer, MPI from `inbox`'s). With `divisor` != 1 the sum is then divided
// by it, in the same pass (the owner's last step of an average).
void sendRecvAdd(Transport& transport, WireImage& image, int sendPeer, BlockRange out,
                 WireInbox& inbox, int recvPeer, BlockRange in, Tag tag, float divisor = 1);

// Ring reduce-scatter of the sum: afterwards block `group.index` (of the
// split of the vector into group.size() blocks, partition.h) holds the sum
// over the group; other blocks hold partial sums. Uses `tag`.
// Order of block b: x[b+1] + x[b+2] + ... + x[b] (members in ring order
// starting after b, left to right; with a 16-bit wire every partial sum
// x[b+1] + ... + x[k] is rounded before it is added to x[k+1]).
// With `finalDivisor` != 1 the finished block is also divided by it, fused
// into its last addition (ringAllreduce's average; the same bits as
// dividing afterwards).
void ringReduceScatter(Transport& transport, const Group& group, WireImage& image, Tag tag,
                       float finalDivisor = 1);

// Ring all-gather in place: member i's bytes are at blocks[i] of `data` on
// entry (on member i), every member has all blocks on return. Uses `tag`.
void ringAllgatherv(Transport& transport, const Group& group, MutableBytes data,
                    std::span<const BlockRange> blocks, Tag tag);

// Ring all-reduce on a group: ringReduceScatter, then the owner of each block
// divides it by `divisor` when op is kAverage and rounds it to the wire,
// then ringAllgatherv of the image, decoded. Afterwards the image holds the
// encoding of the whole (finished) vector. Uses tags tag and tag + 1.
void ringAllreduce(Transport& transport, const Group& group, WireImage& image, ReduceOp op,
                   int divisor, Tag tag);

// Binomial-tree reduce (sum) to the member at `rootIndex`: the root's data
// holds the sum; other members' data hold partial sums. Uses `tag`.
// Order at a member v (relative to the root): x[v] + S(v+1) + S(v+2) + S(v+4)
// ..., where S(u) is the sum of u's subtree computed the same way (and, with
// a 16-bit wire, rounded to it).
void binomialReduce(Transport& transport, const Group& group, WireImage& image, int rootIndex,
                    Tag tag);

// Binomial-tree broadcast of `data` from the member at `rootIndex`. Uses `tag`.
void binomialBroadcast(Transport& transport, const Group& group, MutableBytes data, int rootIndex,
                       Tag tag);

// The folding of a non-power-of-two world onto pof2 = 2^floor(log2 p)
// "participants" (Thakur, Rabenseifner and Gropp 2005): with rem = p - pof2,
// ranks 2i and 2i+1 (i < rem) are represented by participant i, which runs
// on rank 2i; ranks r >= 2*rem are participant r - rem. Participant v covers
// the consecutive world ranks [firstRank(v), endRank(v)).
struct PowerOfTwoFold {
  int size = 1;
  int pof2 = 1;
  int rem = 0;

  explicit PowerOfTwoFold(int worldSize);
  // Participant index of world rank r, or -1 for the odd ranks r < 2*rem.
  int participant(int r) const { return r < 2 * rem ? (r % 2 == 0 ? r / 2 : -1) : r - rem; }
  int rankOf(int v) const { return v < rem ? 2 * v : v + rem; }
  int firstRank(int v) const { return rankOf(v); }
  int endRank(int v) const { return v < rem ? 2 * v + 2 : v + rem + 1; }
  // True for the ranks r < 2*rem that pair up in the fold.
  bool folded(int r) const { return r < 2 * rem; }
  // The elements of the blocks (partition.h, p blocks of n) of participants
  // [v0, v1).
  BlockRange span(size_t n, int v0, int v1) const;
};

// Recursive halving reduce-scatter (sum) on the world, non-power-of-two
// ranks folded as in PowerOfTwoFold with the halved exchange of Thakur et
// al.: afterwards participant v holds the sum of fold.span(n, v, v + 1);
// non-participants' data hold partial sums. Uses tags tag .. tag + 2.
void halvingReduceScatter(Transport& transport, const PowerOfTwoFold& fold, WireImage& image,
                          Tag tag);

// Recursive doubling all-gather among the participants of `fold`: on entry
// participant v holds bytes blocks[v] (blocks indexed by participant, and
// consecutive: blocks[v].end() == blocks[v + 1].offset); on return every
// participant holds all of them. Non-participants do nothing. Uses `tag`.
void doublingAllgather(Transport& transport, const PowerOfTwoFold& fold, MutableBytes data,
                       std::span<const BlockRange> blocks, Tag tag);

// World-level algorithms, dispatched by the public entry points (which
// check arguments and add error context). One file each. With a 16-bit
// `wire` the result is rounded to it (identically on every rank).
void allreduceRing(Transport& transport, std::span<float> data, ReduceOp op, WirePrecision wire,
                   Tag tag);
void allreduceRecursiveDoubling(Transport& transport, std::span<float> data, ReduceOp op,
                                WirePrecision wire, Tag tag);
void allreduceRabenseifner(Transport& transport, std::span<float> data, ReduceOp op,
                           WirePrecision wire, Tag tag);
void allreduceTree(Transport& transport, std::span<float> data, ReduceOp op, WirePrecision wire,
                   Tag tag);
void allreduceHierarchical(Transport& transport, std::span<float> data, ReduceOp op,
                           WirePrecision wire, Tag tag);
void broadcastScatterAllgather(Transport& transport, MutableBytes data, int root, Tag tag);
void allgathervRecursiveDoubling(Transport& transport, MutableBytes data,
                                 std::span<const BlockRange> blocks, Tag tag);

}  // namespace tetrad::detail
