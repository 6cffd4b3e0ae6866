// Test support for the collectives: deterministic per-rank inputs and
// references that sum in exactly the order each algorithm documents, so the
// tests can demand bit-exact results (and a float-tolerance check against a
// double-precision sum for every algorithm, the engine's own included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/reduce_scatter.h"

namespace tetrad::testing {

// Element i of rank r's input for case `salt`: values of varied magnitude
// and full mantissas, so that the association order changes the rounding.
float inputValue(int rank, size_t i, uint64_t salt);
std::vector<float> inputOf(int rank, size_t n, uint64_t salt);

// Ordered sums of one element's per-rank values `x` (x[r] = rank r's value).
float ringOrderSum(const std::vector<float>& x, int block);  // x[b+1] + ... + x[b]
float treeOrderSum(const std::vector<float>& x);             // binomial tree to 0
float doublingOrderSum(const std::vector<float>& x);         // fold, masks ascending
float halvingOrderSum(const std::vector<float>& x);          // fold, masks descending
float hierarchicalOrderSum(const std::vector<float>& x, int ranksPerNode, int leaderBlock);

// The all-reduce result of `algorithm` for world size p (all ranks' inputs
// from inputOf), in the algorithm's order, finished for `op`. kNative has no
// fixed order: the rank-ordered sum is returned (compare with tolerance).
std::vector<float> expectedAllreduce(AllreduceAlgorithm algorithm, int p, int ranksPerNode,
                                     size_t n, ReduceOp op, uint64_t salt);
// Rank `rank`'s block of the reduce-scatter result.
std::vector<float> expectedReduceScatter(ReduceScatterAlgorithm algorithm, int p, int rank,
                                         size_t n, ReduceOp op, uint64_t salt);
// Σ_r inputOf(r)[i] in double precision, and Σ_r |inputOf(r)[i]|.
void exactSum(int p, size_t n, uint64_t salt, std::vector<double>& sum,
              std::vector<double>& magnitude);

}  // namespace tetrad::testing
