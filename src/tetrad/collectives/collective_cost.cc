// α–β–γ cost model of the collectives (collective_cost.h): each function
// walks the steps of the algorithm as implemented, with exact block sizes.
#include "tetrad/collectives/collective_cost.h"

#include <algorithm>
#include <vector>

#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/partition.h"

namespace tetrad {
namespace {

constexpr double kFloat = sizeof(float);

int ceilLog2(int p) {
  int rounds = 0;
  while ((1 << rounds) < p) ++rounds;
  return rounds;
}

// One step: a message of `bytes`, `reduced` bytes added on arrival; α and β
// corrected by the per-size factors of `c` (1 when it has none).
double step(const CostParams& c, double alpha, double beta, double gamma, double bytes,
            double reduced = 0) {
  // The TCP window bound: a rate of at most tcpGamma / (2α).
  const double perByte = c.tcpGamma > 0 ? std::max(beta, 2 * alpha / c.tcpGamma) : beta;
  return alpha * c.latencyFactor.at(bytes) + bytes * perByte / c.bandwidthFactor.at(bytes) +
         reduced * gamma;
}

// `elem`: bytes per element on the wire (kFloat, or 2 for a 16-bit wire).
double ringReduceScatter(const CostParams& c, int p, size_t count, double elem, double alpha,
                         double beta, double gamma) {
  const double block = static_cast<double>(largestBlock(count, p)) * elem;
  return (p - 1) * step(c, alpha, beta, gamma, block, block);
}

double ringAllgather(const CostParams& c, int p, double largestBlockBytes, double alpha,
                     double beta) {
  return (p - 1) * step(c, alpha, beta, 0, largestBlockBytes);
}

double ringAllreduce(const CostParams& c, int p, size_t count, double elem, double alpha,
                     double beta, double gamma) {
  if (p == 1) return 0;
  return ringReduceScatter(c, p, count, elem, alpha, beta, gamma) +
         ringAllgather(c, p, static_cast<double>(largestBlock(count, p)) * elem, alpha, beta);
}

double binomialRounds(const CostParams& c, int p, double bytes, double alpha, double beta,
                      double gamma) {
  return ceilLog2(p) * step(c, alpha, beta, gamma, bytes, gamma > 0 ? bytes : 0);
}

// The fold's halved exchange and the return of the reduced half
// (reduce_scatter_halving.cc).
double foldHalves(const detail::PowerOfTwoFold& fold, size_t count, double elem,
                  const CostParams& c) {
  if (fold.rem == 0) return 0;
  const double half = static_cast<double>(count - count / 2) * elem;
  return step(c, c.alpha, c.beta, c.gamma, half, half) + step(c, c.alpha, c.beta, 0, half);
}

// Recursive halving among the participants: per step the largest half.
double halvingSteps(const detail::PowerOfTwoFold& fold, size_t count, double elem,
                    const CostParams& c) {
  double total = 0;
  for (int mask = fold.pof2 / 2; mask >= 1; mask /= 2) {
    double largest = 0;
    for (int lo = 0; lo < fold.pof2; lo += 2 * mask) {
      largest = std::max({largest, static_cast<double>(fold.span(count, lo, lo + mask).count),
                          static_cast<double>(fold.span(count, lo + mask, lo + 2 * mask).count)});
    }
    total += step(c, c.alpha, c.beta, c.gamma, largest * elem, largest * elem);
  }
  return total;
}

// Recursive doubling all-gather among the participants, superblocks given
// by `bytesOf(first, end)`: per step the largest window.
template <typename BytesOf>
double doublingSteps(const detail::PowerOfTwoFold& fold, BytesOf bytesOf, const CostParams& c) {
  double total = 0;
  for (int mask = 1; mask < fold.pof2; mask <<= 1) {
    double largest = 0;
    for (int lo = 0; lo < fold.pof2; lo += mask)
      largest = std::max(largest, bytesOf(lo, lo + mask));
    total += step(c, c.alpha, c.beta, 0, largest);
  }
  return total;
}

double rabenseifner(int p, size_t count, double elem, const CostParams& c) {
  if (p == 1) return 0;
  const detail::PowerOfTwoFold fold(p);
  double total = foldHalves(fold, count, elem, c) + halvingSteps(fold, count, elem, c);
  total += doublingSteps(
      fold, [&](int a, int b) { return static_cast<double>(fold.span(count, a, b).count) * elem; },
      c);
  if (fold.rem > 0) total += step(c, c.alpha, c.beta, 0, static_cast<double>(count) * elem);
  return total;
}

double recursiveDoubling(int p, size_t count, double elem, const CostParams& c) {
  if (p == 1) return 0;
  const detail::PowerOfTwoFold fold(p);
  const double bytes = static_cast<double>(count) * elem;
  double total = ceilLog2(fold.pof2) * step(c, c.alpha, c.beta, c.gamma, bytes, bytes);
  if (fold.rem > 0)
    total += step(c, c.alpha, c.beta, c.gamma, bytes, bytes) + step(c, c.alpha, c.beta, 0, bytes);
  return total;
}

double hierarchical(int p, size_t count, double elem, const CostParams& c) {
  const int perNode = std::clamp(c.ranksPerNode, 1, p);
  const int nodes = (p + perNode - 1) / perNode;
  const double bytes = static_cast<double>(count) * elem;
  return binomialRounds(c, perNode, bytes, c.intraAlpha, c.intraBeta, c.gamma) +
         ringAllreduce(c, nodes, count, elem, c.alpha, c.beta, c.gamma) +
         binomialRounds(c, perNode, bytes, c.intraAlpha, c.intraBeta, 0);
}

}  // namespace

double allreduceCost(AllreduceAlgorithm algorithm, int p, size_t count, const CostParams& c,
                     WirePrecision wire) {
  TETRAD_CHECK(p >= 1, InvalidArgument, "cost model: world size must be >= 1, got {}", p);
  const double elem = static_cast<double>(wireElementBytes(wire));
  switch (algorithm) {
    case AllreduceAlgorithm::kRing:
      return ringAllreduce(c, p, count, elem, c.alpha, c.beta, c.gamma);
    case AllreduceAlgorithm::kRecursiveDoubling:
      return recursiveDoubling(p, count, elem, c);
    case AllreduceAlgorithm::kRabenseifner:
      return rabenseifner(p, count, elem, c);
    case AllreduceAlgorithm::kTree: {
      const double bytes = static_cast<double>(count) * elem;
      return binomialRounds(c, p, bytes, c.alpha, c.beta, c.gamma) +
             binomialRounds(c, p, bytes, c.alpha, c.beta, 0);
    }
    case AllreduceAlgorithm::kHierarchical:
      return hierarchical(p, count, elem, c);
    case AllreduceAlgorithm::kAuto:
      // The fastest candidate for this vector (allreduce_auto.h).
      return AllreduceSelector(p, c, "cost model").predictedSeconds(count, wire);
    case AllreduceAlgorithm::kNative:
      break;
  }
  TETRAD_FAIL(Unsupported, "no α–β model for the '{}' all-reduce", toString(algorithm));
}

double allgatherCost(AllgatherAlgorithm algorithm, int p, size_t count, const CostParams& c) {
  TETRAD_CHECK(p >= 1, InvalidArgument, "cost model: world size must be >= 1, got {}", p);
  if (p == 1) return 0;
  const double block = static_cast<double>(count) * kFloat;
  if (algorithm == AllgatherAlgorithm::kRing) return ringAllgather(c, p, block, c.alpha, c.beta);
  const detail::PowerOfTwoFold fold(p);
  double total = doublingSteps(
      fold, [&](int a, int b) { return (fold.firstRank(b) - fold.firstRank(a)) * block; }, c);
  if (fold.rem > 0)
    total += step(c, c.alpha, c.beta, 0, block) + step(c, c.alpha, c.beta, 0, p * block);
  return total;
}

double broadcastCost(BroadcastAlgorithm algorithm, int p, size_t bytes, const CostParams& c) {
  TETRAD_CHECK(p >= 1, InvalidArgument, "cost model: world size must be >= 1, got {}", p);
  if (p == 1) return 0;
  if (algorithm == BroadcastAlgorithm::kBinomial) {
    return binomialRounds(c, p, static_cast<double>(bytes), c.alpha, c.beta, 0);
  }
  // Binomial scatter: the time each relative position has its blocks.
  std::vector<double> ready(static_cast<size_t>(p), 0.0);
  double scatter = 0;
  for (int v = 0; v < p; ++v) {
    int top = 1;
    while (top < p && !(v & top)) top <<= 1;  // lowest set bit of v (p for the root)
    double t = ready[v];
    for (int mask = top >> 1; mask > 0; mask >>= 1) {
      if (v + mask >= p) continue;
      const int end = std::min(v + 2 * mask, p);
      const double sent = static_cast<double>(blockRange(bytes, p, end - 1).end() -
                                              blockRange(bytes, p, v + mask).offset);
      t += step(c, c.alpha, c.beta, 0, sent);
      ready[v + mask] = t;
      scatter = std::max(scatter, t);
    }
  }
  return scatter +
         ringAllgather(c, p, static_cast<double>(largestBlock(bytes, p)), c.alpha, c.beta);
}

double reduceScatterCost(ReduceScatterAlgorithm algorithm, int p, size_t count,
                         const CostParams& c) {
  TETRAD_CHECK(p >= 1, InvalidArgument, "cost model: world size must be >= 1, got {}", p);
  if (p == 1) return 0;
  if (algorithm == ReduceScatterAlgorithm::kRing) {
    return ringReduceScatter(c, p, count, kFloat, c.alpha, c.beta, c.gamma);
  }
  const detail::PowerOfTwoFold fold(p);
  double total = foldHalves(fold, count, kFloat, c) + halvingSteps(fold, count, kFloat, c);
  if (fold.rem > 0) {
    total += step(c, c.alpha, c.beta, 0, static_cast<double>(largestBlock(count, p)) * kFloat);
  }
  return total;
}

double barrierCost(int p, const CostParams& c) {
  return ceilLog2(p) * c.alpha * c.latencyFactor.at(0);
}

}  // namespace tetrad
