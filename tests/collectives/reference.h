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

// A value as it arrives over `wire`: itself for kFloat32, else rounded to
// fp16 / bf16 and widened (portable scalar code of core/float16.h).
float wireRound(WirePrecision wire, float value);

// Ordered sums of one element's per-rank values `x` (x[r] = rank r's value).
// With a 16-bit `wire`, every partial sum that travels is rounded as the
// algorithm rounds it (collectives/allreduce.h); the final rounding of the
// result is left to expectedAllreduce.
float ringOrderSum(const std::vector<float>& x, int block,
                   WirePrecision wire = WirePrecision::kFloat32);  // x[b+1] + ... + x[b]
float treeOrderSum(const std::vector<float>& x,
                   WirePrecision wire = WirePrecision::kFloat32);  // binomial tree to 0
float doublingOrderSum(const std::vector<float>& x,
                       WirePrecision wire = WirePrecision::kFloat32);  // fold, masks ascending
// Fold, masks descending. `owner`: the participant that finishes the element
// (its block's rank r: r / 2 when r < 2·rem, else r - rem); `upperHalf`: the
// element lies in the upper half of the vector (which rank 2i+1 reduces in
// the fold). Both matter only with a 16-bit wire.
float halvingOrderSum(const std::vector<float>& x, int owner = 0, bool upperHalf = false,
                      WirePrecision wire = WirePrecision::kFloat32);
float hierarchicalOrderSum(const std::vector<float>& x, int ranksPerNode, int leaderBlock,
                           WirePrecision wire = WirePrecision::kFloat32);

// The all-reduce result of `algorithm` for world size p (all ranks' inputs
// from inputOf), in the algorithm's order, finished for `op` and, with a
// 16-bit `wire`, rounded to it. kNative has no fixed order: the rank-ordered
// sum is returned (compare with tolerance).
std::vector<float> expectedAllreduce(AllreduceAlgorithm algorithm, int p, int ranksPerNode,
                                     size_t n, ReduceOp op, uint64_t salt,
                                     WirePrecision wire = WirePrecision::kFloat32);
// Rank `rank`'s block of the reduce-scatter result.
std::vector<float> expectedReduceScatter(ReduceScatterAlgorithm algorithm, int p, int rank,
                                         size_t n, ReduceOp op, uint64_t salt);
// Σ_r inputOf(r)[i] in double precision, and Σ_r |inputOf(r)[i]|.
void exactSum(int p, size_t n, uint64_t salt, std::vector<double>& sum,
              std::vector<double>& magnitude);

}  // namespace tetrad::testing
