// Partitioning: iid strided shards reproduce the single-worker batches;
// Dirichlet shards are disjoint, complete, deterministic and skewed.
#include "tetrad/train/data/partition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tetrad/core/error.h"
#include "train_core_test_util.h"

namespace tetrad::train {
namespace {

using testing::patternLabels;

TEST(Partition, IidStepsOfNRanksCoverTheOneRankStep) {
  const size_t n = 1003;
  const int workers = 4, batch = 8;
  auto l = patternLabels(n);
  int64_t steps = stepsPerEpoch(n, workers, batch);
  EXPECT_EQ(steps, int64_t(n / (workers * batch)));
  EXPECT_EQ(stepsPerEpoch(n, 1, workers * batch), steps);
  for (int64_t epoch : {0, 3}) {
    ShardSampler single(l, 10, 0, 1, {}, 42);
    std::vector<int64_t> one = single.epochOrder(epoch, size_t(steps) * workers * batch);
    std::vector<std::vector<int64_t>> ranks;
    for (int r = 0; r < workers; ++r) {
      ranks.push_back(ShardSampler(l, 10, r, workers, {}, 42).epochOrder(epoch, steps * batch));
    }
    for (int64_t s = 0; s < steps; ++s) {
      std::multiset<int64_t> expected(one.begin() + s * workers * batch,
                                      one.begin() + (s + 1) * workers * batch);
      std::multiset<int64_t> got;
      for (auto& order : ranks)
        got.insert(order.begin() + s * batch, order.begin() + (s + 1) * batch);
      ASSERT_EQ(got, expected) << "epoch " << epoch << " step " << s;
    }
  }
}

// stepOrder() is epochOrder() when the global batch is workers x batch, and
// with the uneven shares of an elastic resize (a global batch of 32 over 3
// or 5 ranks) every step still covers the one-rank step's samples once.
TEST(Partition, IidStepOrderSplitsAGlobalBatchOverAnyWorkerCount) {
  const size_t n = 1003;
  const int64_t global = 32;
  auto l = patternLabels(n);
  const int64_t steps = stepsPerEpoch(n, 1, int(global));
  for (int64_t epoch : {0, 2}) {
    const std::vector<int64_t> one =
        ShardSampler(l, 10, 0, 1, {}, 42).epochOrder(epoch, size_t(steps * global));
    ShardSampler four(l, 10, 1, 4, {}, 42);
    const std::vector<int64_t> strided = four.epochOrder(epoch, size_t(steps) * 8);
    EXPECT_EQ(four.stepOrder(epoch, steps, global, 8),
              std::vector<int64_t>(strided.begin(), strided.begin() + steps * 8));
    for (int workers : {3, 5}) {
      std::vector<std::vector<int64_t>> ranks;
      std::vector<int> shares;
      for (int r = 0; r < workers; ++r) {
        shares.push_back(int(global / workers + (r < global % workers ? 1 : 0)));
        ranks.push_back(ShardSampler(l, 10, r, workers, {}, 42)
                            .stepOrder(epoch, steps, global, shares.back()));
        ASSERT_EQ(ranks.back().size(), size_t(steps * shares.back()));
      }
      for (int64_t s = 0; s < steps; ++s) {
        std::multiset<int64_t> expected(one.begin() + s * global, one.begin() + (s + 1) * global);
        std::multiset<int64_t> got;
        for (int r = 0; r < workers; ++r) {
          got.insert(ranks[size_t(r)].begin() + s * shares[size_t(r)],
                     ranks[size_t(r)].begin() + (s + 1) * shares[size_t(r)]);
        }
        ASSERT_EQ(got, expected) << workers << " workers, epoch " << epoch << " step " << s;
      }
    }
  }
  // A share that reaches past the step's global batch is refused.
  EXPECT_THROW(ShardSampler(l, 10, 2, 3, {}, 42).stepOrder(0, steps, global, 11), InvalidArgument);
}

TEST(Partition, IidOrderDependsOnSeedAndEpoch) {
  auto l = patternLabels(200);
  ShardSampler a(l, 10, 1, 2, {}, 1), b(l, 10, 1, 2, {}, 1), c(l, 10, 1, 2, {}, 2);
  EXPECT_EQ(a.epochOrder(0, 100), b.epochOrder(0, 100));
  EXPECT_NE(a.epochOrder(0, 100), c.epochOrder(0, 100));
  EXPECT_NE(a.epochOrder(0, 100), a.epochOrder(1, 100));
  EXPECT_EQ(a.shardSize(), 100u);
  EXPECT_THROW(a.epochOrder(0, 101), InvalidArgument);
}

TEST(Partition, DirichletShardsAreDisjointCompleteAndDeterministic) {
  auto l = patternLabels(5000);
  auto shards = dirichletPartition(l, 10, 5, 0.5, 9);
  EXPECT_EQ(shards, dirichletPartition(l, 10, 5, 0.5, 9));
  EXPECT_NE(shards, dirichletPartition(l, 10, 5, 0.5, 10));
  std::vector<int64_t> all;
  for (auto& s : shards) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), l.size());
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], int64_t(i));
}

// Mean over ranks of the largest class share: about 0.1 when iid, near 1 for
// tiny alpha.
double skew(const std::vector<std::vector<int64_t>>& shards, const std::vector<uint8_t>& l) {
  double total = 0;
  for (auto& s : shards) {
    std::vector<int> counts(10);
    for (int64_t i : s) counts[l[i]]++;
    total += double(*std::max_element(counts.begin(), counts.end())) / double(s.size());
  }
  return total / double(shards.size());
}

TEST(Partition, SmallAlphaIsNonIid) {
  auto l = patternLabels(10000);
  double lowAlpha = skew(dirichletPartition(l, 10, 4, 0.05, 3), l);
  double highAlpha = skew(dirichletPartition(l, 10, 4, 1000, 3), l);
  EXPECT_GT(lowAlpha, 0.3);  // each rank holds 2-3 of the 10 classes
  EXPECT_LT(highAlpha, 0.15);
}

TEST(Partition, DirichletSamplerCyclesItsShard) {
  auto l = patternLabels(1000);
  PartitionSpec spec = parsePartition("dirichlet:0.3");
  ShardSampler sampler(l, 10, 2, 4, spec, 5);
  size_t shard = sampler.shardSize();
  std::vector<int64_t> order = sampler.epochOrder(0, 3 * shard + 1);
  EXPECT_GE(order.size(), 3 * shard + 1);
  std::set<int64_t> distinct(order.begin(), order.end());
  EXPECT_EQ(distinct.size(), shard);
  EXPECT_EQ(order, ShardSampler(l, 10, 2, 4, spec, 5).epochOrder(0, 3 * shard + 1));
}

TEST(Partition, BadSpecsAndSizesAreErrors) {
  EXPECT_THROW(parsePartition("dirichlet:0"), InvalidArgument);
  EXPECT_THROW(parsePartition("dirichlet:x"), InvalidArgument);
  EXPECT_THROW(parsePartition("random"), InvalidArgument);
  EXPECT_EQ(parsePartition("dirichlet:0.5").toString(), "dirichlet:0.5");
  EXPECT_THROW(stepsPerEpoch(100, 4, 32), InvalidArgument);
  // Three samples cannot cover eight ranks.
  EXPECT_THROW(dirichletPartition(patternLabels(3), 10, 8, 0.1, 1), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::train
