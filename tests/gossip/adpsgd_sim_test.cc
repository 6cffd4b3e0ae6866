// AD-PSGD's exchange (adpsgd_exchange.h) on simulated star clusters, pure
// gossip (adpsgd_helpers.h): on 2 to 9 workers, odd rings included and with
// a straggler, every rank terminates, the sum of the models is kept, the
// consensus distance contracts, the step counter and the staleness
// histogram account for every step, a run is reproducible from its seed, a
// fast worker averages more often than a straggler, and a dead neighbour is
// named.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "adpsgd_helpers.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using testing::gossipStar;
using testing::initialVector;
using testing::PureGossipResult;

std::vector<PureGossipResult> runWorld(int p, const std::string& topology, size_t n,
                                       int64_t iterations, int straggler, uint64_t seed = 1) {
  std::vector<PureGossipResult> results(static_cast<size_t>(p));
  launch(gossipStar(p), [&](Transport& world) {
    const double pause = world.rank() == straggler ? 0.004 : 0.001;
    results[size_t(world.rank())] =
        testing::runPureAdpsgd(world, topology, n, iterations, pause, seed);
  });
  return results;
}

std::vector<std::vector<float>> modelsOf(const std::vector<PureGossipResult>& results) {
  std::vector<std::vector<float>> xs;
  for (const PureGossipResult& r : results) xs.push_back(r.x);
  return xs;
}

TEST(AdpsgdSim, TerminatesKeepsTheSumAndContractsOnTwoToNineWorkers) {
  const size_t n = 300;
  const int64_t iterations = 12;
  for (int p = 2; p <= 9; ++p) {
    for (const std::string topology : {"ring", "complete"}) {
      SCOPED_TRACE(topology + " on " + std::to_string(p));
      const std::vector<PureGossipResult> results = runWorld(p, topology, n, iterations, 0);
      std::vector<std::vector<float>> initial;
      for (int r = 0; r < p; ++r) initial.push_back(initialVector(r, n));
      const std::vector<double> before = testing::meanOf(initial);
      const std::vector<double> after = testing::meanOf(modelsOf(results));
      for (size_t k = 0; k < n; ++k) ASSERT_NEAR(after[k], before[k], 1e-5) << "[" << k << "]";
      const double d0 = testing::consensusDistance(initial);
      const double d1 = testing::consensusDistance(modelsOf(results));
      EXPECT_LT(d1, 0.05 * d0) << "consensus " << d0 << " -> " << d1;
      // Every step ticks the counter once and averages once.
      int64_t steps = 0, averaged = 0;
      for (const PureGossipResult& r : results) {
        steps += r.steps;
        for (const auto& [staleness, count] : r.stats.stalenessHistogram) {
          EXPECT_GE(staleness, 0);
          averaged += count;
        }
      }
      EXPECT_EQ(results[0].stats.updatesApplied, steps);
      EXPECT_EQ(averaged, steps);
      // The run stops at the limit; steps in flight then add at most p - 1.
      EXPECT_GE(steps, iterations * p);
      EXPECT_LT(steps, iterations * p + p);
    }
  }
}

TEST(AdpsgdSim, FastWorkersDoMoreOfTheWorkThanAStraggler) {
  const int p = 7;  // an odd ring: no bipartite split exists
  const std::vector<PureGossipResult> results = runWorld(p, "ring", 100, 20, 3);
  for (int r = 0; r < p; ++r) {
    if (r != 3) {
      EXPECT_GT(results[size_t(r)].steps, 2 * results[3].steps) << "rank " << r;
    }
  }
  // The straggler's neighbours see its model several of everyone's steps old.
  int64_t maximum = 0;
  for (const PureGossipResult& r : results) {
    maximum = std::max(maximum, r.stats.stalenessHistogram.rbegin()->first);
  }
  EXPECT_GE(maximum, p);
}

TEST(AdpsgdSim, ASeedGivesOneRun) {
  const auto a = modelsOf(runWorld(5, "ring", 64, 6, 1, 7));
  const auto b = modelsOf(runWorld(5, "ring", 64, 6, 1, 7));
  const auto c = modelsOf(runWorld(5, "ring", 64, 6, 1, 8));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);  // other partners
}

TEST(AdpsgdSim, ADeadNeighbourIsNamed) {
  LaunchOptions options = gossipStar(4);
  options.timeoutSeconds = 2;
  std::string errors;
  EXPECT_THROW(launch(options,
                      [&](Transport& world) {
                        if (world.rank() == 2) return;  // dies before training
                        try {
                          testing::runPureAdpsgd(world, "ring", 16, 50, 0.001);
                        } catch (const Error& e) {
                          if (world.rank() == 1 || world.rank() == 3) errors += e.what();
                          throw;
                        }
                      }),
               Error);
  EXPECT_NE(errors.find("rank 2"), std::string::npos) << errors;
}

TEST(AdpsgdSim, PayloadFreeRunsAreRefused) {
  EXPECT_THROW(launch(gossipStar(2, false, true),
                      [](Transport& world) { testing::runPureAdpsgd(world, "ring", 8, 1, 0); }),
               Unsupported);
}

}  // namespace
}  // namespace tetrad
