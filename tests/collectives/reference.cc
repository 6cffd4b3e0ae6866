#include "reference.h"

#include <algorithm>
#include <cmath>

#include "tetrad/collectives/partition.h"
#include "tetrad/core/float16.h"

namespace tetrad::testing {
namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

int largestPowerOfTwo(int p) {
  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  return pof2;
}

// Participant leaves of the non-power-of-two fold: rank 2i adds what 2i+1
// sends; in the upper half of the halved fold it is the other way round, and
// 2i+1 then sends its sum to 2i.
std::vector<float> foldLeaves(const std::vector<float>& x, WirePrecision wire, bool upperHalf) {
  const int p = static_cast<int>(x.size());
  const int pof2 = largestPowerOfTwo(p);
  const int rem = p - pof2;
  std::vector<float> leaves(static_cast<size_t>(pof2));
  for (int v = 0; v < pof2; ++v) {
    if (v >= rem) {
      leaves[v] = x[v + rem];
    } else if (upperHalf) {
      leaves[v] = wireRound(wire, x[2 * v + 1] + wireRound(wire, x[2 * v]));
    } else {
      leaves[v] = x[2 * v] + wireRound(wire, x[2 * v + 1]);
    }
  }
  return leaves;
}

float subtreeSum(const std::vector<float>& x, int v, WirePrecision wire) {
  const int p = static_cast<int>(x.size());
  float acc = x[v];
  for (int mask = 1; mask < p && !(v & mask); mask <<= 1) {
    if (v + mask < p) acc += wireRound(wire, subtreeSum(x, v + mask, wire));
  }
  return acc;
}

float finish(float sum, ReduceOp op, int p) {
  return op == ReduceOp::kAverage && p > 1 ? sum / static_cast<float>(p) : sum;
}

}  // namespace

float inputValue(int rank, size_t i, uint64_t salt) {
  const uint64_t h = mix(mix(salt * 1000003 + static_cast<uint64_t>(rank)) + i);
  const float unit = static_cast<float>(static_cast<int64_t>(h >> 40) - (int64_t{1} << 23)) /
                     static_cast<float>(int64_t{1} << 23);  // [-1, 1), 24-bit mantissa
  return std::ldexp(unit, static_cast<int>(h % 9) - 4);
}

std::vector<float> inputOf(int rank, size_t n, uint64_t salt) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = inputValue(rank, i, salt);
  return values;
}

float wireRound(WirePrecision wire, float value) {
  switch (wire) {
    case WirePrecision::kFloat32:
      return value;
    case WirePrecision::kFloat16:
      return halfToFloatPortable(floatToHalfPortable(value));
    case WirePrecision::kBFloat16:
      return bf16ToFloat(floatToBf16(value));
  }
  return value;
}

float ringOrderSum(const std::vector<float>& x, int block, WirePrecision wire) {
  const int p = static_cast<int>(x.size());
  float acc = x[(block + 1) % p];
  for (int k = 2; k <= p; ++k) acc = wireRound(wire, acc) + x[(block + k) % p];
  return acc;
}

float treeOrderSum(const std::vector<float>& x, WirePrecision wire) {
  return subtreeSum(x, 0, wire);
}

// Both partners round their own vector too, so every participant ends equal.
float doublingOrderSum(const std::vector<float>& x, WirePrecision wire) {
  std::vector<float> cur = foldLeaves(x, wire, false);
  const int pof2 = static_cast<int>(cur.size());
  for (int mask = 1; mask < pof2; mask <<= 1) {
    std::vector<float> next(cur.size());
    for (int v = 0; v < pof2; ++v)
      next[v] = wireRound(wire, cur[v]) + wireRound(wire, cur[v ^ mask]);
    cur = next;
  }
  return cur[0];
}

// At each step the participant that keeps the element (the one agreeing with
// `owner` on the step's bit) adds what its partner sends; only the values of
// those keepers are used.
float halvingOrderSum(const std::vector<float>& x, int owner, bool upperHalf, WirePrecision wire) {
  std::vector<float> cur = foldLeaves(x, wire, upperHalf);
  const int pof2 = static_cast<int>(cur.size());
  for (int mask = pof2 / 2; mask >= 1; mask /= 2) {
    std::vector<float> next(cur.size());
    for (int v = 0; v < pof2; ++v) next[v] = cur[v] + wireRound(wire, cur[v ^ mask]);
    cur = next;
  }
  return cur[owner];
}

float hierarchicalOrderSum(const std::vector<float>& x, int ranksPerNode, int leaderBlock,
                           WirePrecision wire) {
  const int p = static_cast<int>(x.size());
  const int g = std::clamp(ranksPerNode, 1, p);
  std::vector<float> nodeSums;
  for (int first = 0; first < p; first += g) {
    std::vector<float> node(x.begin() + first, x.begin() + std::min(first + g, p));
    nodeSums.push_back(treeOrderSum(node, wire));
  }
  return ringOrderSum(nodeSums, leaderBlock, wire);
}

std::vector<float> expectedAllreduce(AllreduceAlgorithm algorithm, int p, int ranksPerNode,
                                     size_t n, ReduceOp op, uint64_t salt, WirePrecision wire) {
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < p; ++r) inputs.push_back(inputOf(r, n, salt));
  const int g = std::clamp(ranksPerNode, 1, p);
  const int nodes = (p + g - 1) / g;
  const int rem = p - largestPowerOfTwo(p);
  std::vector<float> x(static_cast<size_t>(p));
  std::vector<float> out(n);
  int block = 0;
  int leaderBlock = 0;
  for (size_t i = 0; i < n; ++i) {
    for (int r = 0; r < p; ++r) x[r] = inputs[r][i];
    while (blockRange(n, p, block).end() <= i) ++block;
    while (blockRange(n, nodes, leaderBlock).end() <= i) ++leaderBlock;
    float sum = 0;
    switch (algorithm) {
      case AllreduceAlgorithm::kRing:
        sum = ringOrderSum(x, block, wire);
        break;
      case AllreduceAlgorithm::kTree:
        sum = treeOrderSum(x, wire);
        break;
      case AllreduceAlgorithm::kRecursiveDoubling:
        sum = doublingOrderSum(x, wire);
        break;
      case AllreduceAlgorithm::kRabenseifner: {
        const int owner = block < 2 * rem ? block / 2 : block - rem;
        sum = halvingOrderSum(x, owner, i >= n / 2, wire);
        break;
      }
      case AllreduceAlgorithm::kHierarchical:
        sum = hierarchicalOrderSum(x, ranksPerNode, leaderBlock, wire);
        break;
      case AllreduceAlgorithm::kNative:
      case AllreduceAlgorithm::kAuto:  // runs one of the above (allreduce_auto_test.cc)
        for (float value : x) sum += value;
        break;
    }
    out[i] = wireRound(wire, finish(sum, op, p));
  }
  return out;
}

std::vector<float> expectedReduceScatter(ReduceScatterAlgorithm algorithm, int p, int rank,
                                         size_t n, ReduceOp op, uint64_t salt) {
  const BlockRange mine = blockRange(n, p, rank);
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < p; ++r) inputs.push_back(inputOf(r, n, salt));
  std::vector<float> x(static_cast<size_t>(p));
  std::vector<float> out(mine.count);
  for (size_t k = 0; k < mine.count; ++k) {
    for (int r = 0; r < p; ++r) x[r] = inputs[r][mine.offset + k];
    const float sum =
        algorithm == ReduceScatterAlgorithm::kRing ? ringOrderSum(x, rank) : halvingOrderSum(x);
    out[k] = finish(sum, op, p);
  }
  return out;
}

void exactSum(int p, size_t n, uint64_t salt, std::vector<double>& sum,
              std::vector<double>& magnitude) {
  sum.assign(n, 0.0);
  magnitude.assign(n, 0.0);
  for (int r = 0; r < p; ++r) {
    for (size_t i = 0; i < n; ++i) {
      const double value = inputValue(r, i, salt);
      sum[i] += value;
      magnitude[i] += std::abs(value);
    }
  }
}

}  // namespace tetrad::testing
