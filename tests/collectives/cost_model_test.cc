// The α–β cost model against the closed forms of docs/algorithms.md, and
// names and partitions.
#include <gtest/gtest.h>

#include <cmath>

#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/collectives/partition.h"
#include "tetrad/collectives/reduce_scatter.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

constexpr double kA = 10e-6;
constexpr double kB = 1e-9;
constexpr double kG = 0.25e-9;

TEST(CollectivesCostModel, ClosedFormsForPowersOfTwoAndDivisibleLengths) {
  const CostParams c{kA, kB, kG};
  const int p = 8;
  const size_t n = 8 << 20;  // floats
  const double bytes = 4.0 * n;
  EXPECT_DOUBLE_EQ(allreduceCost(AllreduceAlgorithm::kRing, p, n, c),
                   2 * (p - 1) * kA + 2.0 * (p - 1) / p * bytes * kB + (p - 1.0) / p * bytes * kG);
  EXPECT_DOUBLE_EQ(allreduceCost(AllreduceAlgorithm::kRecursiveDoubling, p, n, c),
                   3 * (kA + bytes * kB + bytes * kG));
  EXPECT_DOUBLE_EQ(allreduceCost(AllreduceAlgorithm::kRabenseifner, p, n, c),
                   2 * 3 * kA + 2.0 * (p - 1) / p * bytes * kB + (p - 1.0) / p * bytes * kG);
  EXPECT_DOUBLE_EQ(allreduceCost(AllreduceAlgorithm::kTree, p, n, c),
                   6 * kA + 6 * bytes * kB + 3 * bytes * kG);
  EXPECT_DOUBLE_EQ(reduceScatterCost(ReduceScatterAlgorithm::kRecursiveHalving, p, n, c),
                   3 * kA + (p - 1.0) / p * bytes * (kB + kG));
  EXPECT_DOUBLE_EQ(allgatherCost(AllgatherAlgorithm::kRecursiveDoubling, p, n / p, c),
                   3 * kA + (p - 1.0) / p * bytes * kB);
  EXPECT_DOUBLE_EQ(broadcastCost(BroadcastAlgorithm::kScatterAllgather, p, 4 * n, c),
                   (3 + 7) * kA + 2.0 * (p - 1) / p * bytes * kB);
  EXPECT_DOUBLE_EQ(barrierCost(5, c), 3 * kA);
}

TEST(CollectivesCostModel, NonPowersOfTwoAndOneRank) {
  const CostParams c{kA, kB};
  for (AllreduceAlgorithm a : {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
                               AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree,
                               AllreduceAlgorithm::kHierarchical}) {
    EXPECT_EQ(allreduceCost(a, 1, 1000, c), 0) << toString(a);
  }
  const double bytes = 4.0 * 6000;
  // p = 6: fold + 2 exchanges + unfold.
  EXPECT_DOUBLE_EQ(allreduceCost(AllreduceAlgorithm::kRecursiveDoubling, 6, 6000, c),
                   4 * (kA + bytes * kB));
  // Ring with a length not divisible by p uses the largest block.
  EXPECT_DOUBLE_EQ(allreduceCost(AllreduceAlgorithm::kRing, 3, 10, c), 4 * (kA + 16 * kB));
  // Hierarchical with one rank per node is the ring.
  EXPECT_DOUBLE_EQ(allreduceCost(AllreduceAlgorithm::kHierarchical, 6, 6000, c),
                   allreduceCost(AllreduceAlgorithm::kRing, 6, 6000, c));
  EXPECT_THROW(allreduceCost(AllreduceAlgorithm::kNative, 4, 10, c), Unsupported);
}

TEST(CollectivesCostModel, RingWinsForLargeAndDoublingForSmallMessages) {
  const CostParams c{25e-6, 1.0 / 1.25e9};
  EXPECT_LT(allreduceCost(AllreduceAlgorithm::kRecursiveDoubling, 16, 64, c),
            allreduceCost(AllreduceAlgorithm::kRing, 16, 64, c));
  EXPECT_LT(allreduceCost(AllreduceAlgorithm::kRing, 16, 16 << 20, c),
            allreduceCost(AllreduceAlgorithm::kRecursiveDoubling, 16, 16 << 20, c));
}

TEST(CollectivesPartition, BlocksCoverTheVectorAndDifferByAtMostOne) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{100003}}) {
    for (int p = 1; p <= 9; ++p) {
      size_t next = 0;
      for (int i = 0; i < p; ++i) {
        const BlockRange b = blockRange(n, p, i);
        EXPECT_EQ(b.offset, next);
        EXPECT_LE(b.count, largestBlock(n, p));
        EXPECT_GE(b.count + 1, largestBlock(n, p));
        next = b.end();
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(CollectivesNames, ParseAndPrintRoundTrip) {
  for (AllreduceAlgorithm a : allAllreduceAlgorithms()) {
    EXPECT_EQ(parseAllreduceAlgorithm(toString(a)), a);
  }
  EXPECT_EQ(parseAllreduceAlgorithm("recursive-doubling"), AllreduceAlgorithm::kRecursiveDoubling);
  EXPECT_EQ(parseAllreduceAlgorithm("hd"), AllreduceAlgorithm::kRabenseifner);
  EXPECT_THROW(parseAllreduceAlgorithm("rings"), InvalidArgument);
  EXPECT_EQ(parseAllgatherAlgorithm("rd"), AllgatherAlgorithm::kRecursiveDoubling);
  EXPECT_EQ(parseBroadcastAlgorithm(toString(BroadcastAlgorithm::kScatterAllgather)),
            BroadcastAlgorithm::kScatterAllgather);
  EXPECT_EQ(parseReduceScatterAlgorithm("halving"), ReduceScatterAlgorithm::kRecursiveHalving);
  EXPECT_THROW(parseBroadcastAlgorithm("ring"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad
