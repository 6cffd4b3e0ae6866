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
};

struct AllreduceOptions {
  AllreduceAlgorithm algorithm = AllreduceAlgorithm::kRing;
  ReduceOp op = ReduceOp::kSum;
  Tag tag = 100;
};

void allreduce(Transport& transport, std::span<float> data, const AllreduceOptions& options = {});

// "ring", "rd" (or "recursive-doubling"), "rabenseifner" (or "hd"), "tree",
// "hierarchical", "native". Throws InvalidArgument listing the valid names.
AllreduceAlgorithm parseAllreduceAlgorithm(std::string_view name);
std::string toString(AllreduceAlgorithm algorithm);
std::vector<AllreduceAlgorithm> allAllreduceAlgorithms();

}  // namespace tetrad
