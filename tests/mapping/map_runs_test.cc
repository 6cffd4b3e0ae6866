// The sweep side of a method map (mapping/map_runs.h): which runs a map is
// drawn from, BSP's iterations per worker count, the measured multipliers
// the noise-ratio fit reads, and the cost model's cells — on run records
// built here, as readRunFolders() would return them.
#include "tetrad/mapping/map_runs.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tetrad/core/error.h"

namespace tetrad::mapping {
namespace {

experiment::RunRecord record(const std::string& method, const std::string& cluster, int workers,
                             uint64_t seed, double iterationsToTarget) {
  experiment::RunRecord r;
  r.method = method;
  r.cluster = cluster;
  r.workers = workers;
  r.seed = seed;
  r.status = "ok";
  r.engine = "simgrid";
  r.model = "mlp";
  r.sync = "bsp";
  r.arch = "allreduce:ring";
  r.compress = "none";
  r.sched = "none";
  r.iterationsToTarget = iterationsToTarget;
  r.timeToTarget = std::isfinite(iterationsToTarget) ? iterationsToTarget * 0.01 : NAN;
  r.iterations = 200;
  return r;
}

experiment::RunRecord topk(const std::string& cluster, int workers, uint64_t seed, double its) {
  experiment::RunRecord r = record("topk", cluster, workers, seed, its);
  r.compress = "topk:0.01,ef";
  return r;
}

TEST(MapRuns, GroupsTheFirstClusterOfEachWorkerCountBySeed) {
  std::vector<experiment::RunRecord> records = {
      record("bsp", "a", 4, 1, 100), record("bsp", "a", 4, 2, 110), topk("a", 4, 1, 150),
      topk("b", 4, 1, 999),  // a second cluster with 4 workers: not the map's source
      record("bsp", "c", 8, 1, 90)};
  experiment::RunRecord failed = topk("a", 4, 2, 120);
  failed.status = "failed";
  experiment::RunRecord tuning = topk("a", 4, 3, 120);
  tuning.phase = "tuning";
  experiment::RunRecord real = topk("a", 4, 4, 120);
  real.engine = "mpi";
  records.insert(records.end(), {failed, tuning, real});
  std::vector<int> counts;
  const std::vector<MethodRuns> groups = methodRunsOf(records, counts);
  EXPECT_EQ(counts, (std::vector<int>{4, 8}));
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].first().method, "bsp");
  EXPECT_EQ(groups[0].seeds.size(), 2u);
  EXPECT_EQ(groups[1].first().method, "topk");
  ASSERT_EQ(groups[1].seeds.size(), 1u) << "failed, tuning, mpi and cluster b runs left out";
  EXPECT_EQ(groups[1].first().cluster, "a");
  EXPECT_EQ(groups[2].workers, 8);
}

TEST(MapRuns, BaselineAndMeasuredMultipliers) {
  const std::vector<experiment::RunRecord> records = {
      record("bsp", "a", 4, 1, 100), record("bsp", "a", 4, 2, 120), topk("a", 4, 1, 150),
      topk("a", 4, 2, 180),          record("bsp", "c", 8, 1, 90),  topk("c", 8, 1, NAN)};
  std::vector<int> counts;
  const std::vector<MethodRuns> groups = methodRunsOf(records, counts);
  const std::map<int, double> baseline = baselineIterationsOf(groups);
  ASSERT_EQ(baseline.size(), 2u);
  EXPECT_DOUBLE_EQ(baseline.at(4), 110);
  EXPECT_DOUBLE_EQ(baseline.at(8), 90);
  const std::vector<model::MeasuredMultiplier> measured = measuredMultipliersOf(groups, baseline);
  // bsp at 4 and 8 (1 each) and topk at 4; topk at 8 never reached its target.
  ASSERT_EQ(measured.size(), 3u);
  const model::MeasuredMultiplier& t = measured[1];
  EXPECT_EQ(t.workers, 4);
  EXPECT_EQ(t.method.compress, "topk:0.01,ef");
  EXPECT_DOUBLE_EQ(t.multiplier, 165.0 / 110);
  EXPECT_DOUBLE_EQ(t.momentum, model::kDefaultMomentum);  // not recorded: train's default
  EXPECT_DOUBLE_EQ(measured[0].multiplier, 1);
  EXPECT_EQ(measured[2].workers, 8);
}

TEST(MapRuns, MeanAndSampleStandardDeviation) {
  auto [mean, sd] = meanAndStd({2, 4, 6});
  EXPECT_DOUBLE_EQ(mean, 4);
  EXPECT_DOUBLE_EQ(sd, 2);
  auto [one, none] = meanAndStd({5});
  EXPECT_DOUBLE_EQ(one, 5);
  EXPECT_TRUE(std::isnan(none));
  EXPECT_TRUE(std::isnan(meanAndStd({1, NAN}).first));
}

TEST(MapRuns, PoliciesAreAskedTheirTraits) {
  experiment::RunRecord r = record("m", "a", 4, 1, 10);
  EXPECT_TRUE(synchronous(r));
  r.sync = "accum:4";
  EXPECT_TRUE(synchronous(r));
  r.sync = "ssp:2";
  EXPECT_FALSE(synchronous(r));
  EXPECT_FALSE(overlapsBackward(r));
  r.sched = "";  // not recorded
  EXPECT_FALSE(overlapsBackward(r));
  r.sched = "wfbp";
  EXPECT_TRUE(overlapsBackward(r));
}

// R of a cell: the cost model's communication over compute time per
// iteration; a slower network raises it, and a method the model refuses
// (measured compute) gives NaN rather than a number.
TEST(MapRuns, CommunicationOverComputeFollowsTheCellsNetwork) {
  const experiment::RunRecord r = record("bsp", "a", 8, 1, 10);
  train::TrainConfig config;
  config.model = "mlp";
  config.compute = "fixed:10ms";
  const double fast = costModelCommToCompute(r, config, "sim:100Gbps,1us", "");
  const double slow = costModelCommToCompute(r, config, "sim:100Mbps,1us", "");
  ASSERT_TRUE(std::isfinite(fast) && std::isfinite(slow));
  EXPECT_GT(slow, 100 * fast);
  const double perIteration = costModelTimePerIteration(r, config, "sim:100Mbps,1us", "", 50);
  EXPECT_NEAR(perIteration, 0.01 * (1 + slow), 1e-9 + 1e-6 * perIteration);
  // A device's throughput is its batch time (64 / 6400 per second = 10 ms),
  // so a compute axis over throughput runs has cells too.
  config.compute = "throughput:6400";
  EXPECT_DOUBLE_EQ(costModelCommToCompute(r, config, "sim:100Mbps,1us", ""), slow);
  config.compute = scaledCompute("throughput:6400", 10);  // a device 10x slower: 100 ms
  EXPECT_NEAR(costModelCommToCompute(r, config, "sim:100Mbps,1us", ""), slow / 10, 1e-9 * slow);
  config.compute = "measured";
  EXPECT_TRUE(std::isnan(costModelCommToCompute(r, config, "sim:100Gbps,1us", "")));
}

// The compute axis scales a run's compute time per iteration: a rate
// divides, a duration multiplies; a compute model with no rate is refused.
TEST(MapRuns, ScaledComputeKeepsTheModelAndScalesItsTime) {
  EXPECT_EQ(scaledCompute("fixed:10ms", 1), "fixed:10ms");
  EXPECT_EQ(scaledCompute("fixed:10ms", 0.1), "fixed:1ms");
  EXPECT_EQ(scaledCompute("flops:50", 0.1), "flops:500");
  EXPECT_EQ(scaledCompute("throughput:1200", 10), "throughput:120");
  for (const char* none : {"measured", "device:v100-fp32", ""}) {
    EXPECT_THROW(scaledCompute(none, 10), InvalidArgument) << none;
  }
  EXPECT_THROW(scaledCompute("flops:50", 0), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::mapping
