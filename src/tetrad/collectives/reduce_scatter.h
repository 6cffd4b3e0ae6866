// Reduce-scatter: the element-wise sum (or average) over all ranks of a
// vector, of which rank r keeps block r.
//
// The vector of n floats is split into size() blocks as in partition.h
// (sizes differ by at most one; empty when n < size()). On return, rank r's
// block blockRange(n, size(), r) of `data` holds the reduction of that block
// over all ranks; the rest of `data` is overwritten with partial sums.
//
// Algorithms: ring ((p-1) steps, bandwidth-optimal; reduce_scatter_ring.cc)
// and recursive halving (log2 p steps of halving size; non-power-of-two
// worlds folded as in Thakur, Rabenseifner and Gropp 2005;
// reduce_scatter_halving.cc). Every rank must call with the same length,
// algorithm, op and tag; tags [tag, tag + kCollectiveTagSpan) are used.
// Lengths that differ across ranks are a ProtocolError.
//
// Thread-safety: one call at a time per (transport, tag range).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/collectives/partition.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

enum class ReduceScatterAlgorithm {
  kRing,              // p-1 neighbour steps
  kRecursiveHalving,  // log2(p) pairwise exchanges of halving size
};

struct ReduceScatterOptions {
  ReduceScatterAlgorithm algorithm = ReduceScatterAlgorithm::kRing;
  ReduceOp op = ReduceOp::kSum;
  Tag tag = 500;
};

void reduceScatter(Transport& transport, std::span<float> data,
                   const ReduceScatterOptions& options = {});

// "ring", "halving" (or "recursive-halving").
ReduceScatterAlgorithm parseReduceScatterAlgorithm(std::string_view name);
std::string toString(ReduceScatterAlgorithm algorithm);

}  // namespace tetrad
