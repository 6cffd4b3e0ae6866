// All-reduce of float32 over a Transport: every rank ends with the sum (or
// average) of every rank's `data`.
//
// One algorithm per file (allreduce_ring.cc, allreduce_recursive_doubling.cc,
// allreduce_rabenseifner.cc, allreduce_tree.cc, allreduce_hierarchical.cc);
// each file opens with its α–β cost. kNative calls the engine's own
// all-reduce (MPI_Allreduce under Open MPI) and is refused elsewhere.
//
// Every rank must call with the same length, algorithm, op and tag; the
// algorithm uses tags [tag, tag + kCollectiveTagSpan). Lengths that differ
// across ranks are detected where the algorithm exchanges sizes and reported
// as ProtocolError naming both ranks and lengths.
//
// Wire precision (options.wire, collective_options.h): with a 16-bit wire
// every message of every algorithm carries 2-byte values, so the bytes sent
// (and the β term of the cost) halve. The sender of a block rounds it to the
// wire (round to nearest even), the receiver widens it and adds in float32;
// whoever finishes a block (divides it for kAverage) rounds it too before it
// is distributed. The result is therefore a 16-bit value widened to float32,
// bit-identical on every rank and deterministic. Each value x_r passes
// through at most about log2 p (trees) to p (ring) roundings of partial sums
// that contain it, each off by at most u times that partial sum, so
// |error| <= 2p · u · Σ_r |x_r| with u = 2^-11 (fp16) or 2^-8 (bf16), plus
// fp16's absolute 2^-25 per rounding below 2^-14; fp16 overflows to ±inf
// beyond 65504. Sums whose every partial sum is representable (small
// integers in fp16) are exact.
//
// Thread-safety: one call at a time per (transport, tag range).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

enum class AllreduceAlgorithm {
  kRing,               // reduce-scatter + all-gather around a ring
  kRecursiveDoubling,  // log2(p) full-vector exchanges
  kRabenseifner,       // recursive halving reduce-scatter + doubling all-gather
  kTree,               // binomial-tree reduce + binomial-tree broadcast
  kHierarchical,       // intra-node reduce, inter-node ring, intra-node broadcast
  kNative,             // the engine's own (MPI_Allreduce)
  kAuto,               // per message, the fastest predicted (allreduce_auto.h)
};

class AllreduceSelector;

struct AllreduceOptions {
  AllreduceAlgorithm algorithm = AllreduceAlgorithm::kRing;
  ReduceOp op = ReduceOp::kSum;
  Tag tag = 100;
  // Element type of every message (collective_options.h). kFloat16 and
  // kBFloat16 send 2 bytes per element and round forwarded partial sums at
  // each hop; accumulation stays float32. Refused (Unsupported) by kNative.
  WirePrecision wire = WirePrecision::kFloat32;
  // kAuto: chooses (and records) the algorithm per call; must outlive it.
  const AllreduceSelector* selector = nullptr;
};

void allreduce(Transport& transport, std::span<float> data, const AllreduceOptions& options = {});

// "ring", "rd" (or "recursive-doubling"), "rabenseifner" (or "hd"), "tree",
// "hierarchical", "native", "auto". Throws InvalidArgument listing the valid
// names.
AllreduceAlgorithm parseAllreduceAlgorithm(std::string_view name);
std::string toString(AllreduceAlgorithm algorithm);
// Every concrete algorithm (kAuto, which runs one of them, is not listed).
std::vector<AllreduceAlgorithm> allAllreduceAlgorithms();

}  // namespace tetrad
