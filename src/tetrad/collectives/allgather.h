// All-gather: every rank ends with every rank's contribution, in rank order.
//
//   allgather     each rank contributes the same number of floats;
//   allgatherv    rank r contributes counts[r] floats (every rank passes the
//                 same `counts`);
//   allgatherBytes  byte packets of any size per rank, sizes unknown to the
//                 receivers (compressed gradients, compress/aggregate.h).
//
// Algorithms: ring ((p-1) steps, bandwidth-optimal; allgather_ring.cc) and
// recursive doubling (⌈log2 p⌉ steps, non-power-of-two worlds folded onto
// the largest power of two; allgather_recursive_doubling.cc). Every rank
// must call with the same algorithm and tag; tags [tag, tag +
// kCollectiveTagSpan) are used. A contribution whose size disagrees with
// `counts` on another rank is a ProtocolError naming ranks and sizes.
//
// Thread-safety: one call at a time per (transport, tag range).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/core/bytes.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

enum class AllgatherAlgorithm {
  kRing,               // p-1 neighbour steps
  kRecursiveDoubling,  // log2(p) pairwise exchanges of doubling size
};

struct AllgatherOptions {
  AllgatherAlgorithm algorithm = AllgatherAlgorithm::kRing;
  Tag tag = 300;
};

// out.size() must be size() * mine.size(); out[r*m, (r+1)*m) = rank r's data.
void allgather(Transport& transport, std::span<const float> mine, std::span<float> out,
               const AllgatherOptions& options = {});

// counts.size() == size(), mine.size() == counts[rank()], out.size() ==
// sum(counts); rank r's data lands at offset counts[0] + ... + counts[r-1].
void allgatherv(Transport& transport, std::span<const float> mine, std::span<float> out,
                std::span<const size_t> counts, const AllgatherOptions& options = {});

// The same on bytes: byteCounts[r] bytes from rank r.
void allgathervBytes(Transport& transport, ConstBytes mine, MutableBytes out,
                     std::span<const size_t> byteCounts, const AllgatherOptions& options = {});

// Variable-size byte packets: returns every rank's packet, indexed by rank
// (this rank's is a copy of `mine`). Ring algorithm: each packet travels as
// one message of exactly its size (no header bytes: receivers learn sizes
// from the messages), p-1 steps. Payload-free transports: the returned
// packets have their senders' sizes but unspecified contents; with
// `othersWanted` false, on the analytic engine, the other ranks' packets are
// left empty (the same messages are timed: p ranks holding p packets each
// are p² buffers, the bulk of a payload-free gather at 4,096 ranks).
std::vector<ByteBuffer> allgatherBytes(Transport& transport, ConstBytes mine,
                                       const CollectiveOptions& options = {},
                                       bool othersWanted = true);

// "ring", "rd" (or "recursive-doubling").
AllgatherAlgorithm parseAllgatherAlgorithm(std::string_view name);
std::string toString(AllgatherAlgorithm algorithm);

}  // namespace tetrad
