// Warm-up phases in the cost model (model/warmup_cost.h): DGC's stages are
// the densities of its schedule, L steps each; the mean time per iteration
// charges each stage for the iterations it covers, and is the final
// packets' time without a warm-up or past it.
#include "tetrad/model/warmup_cost.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tetrad/compress/registry.h"
#include "tetrad/model/codec_cost.h"
#include "tetrad/model/network_model.h"
#include "tetrad/model/workload.h"

namespace tetrad::model {
namespace {

ModelContext slowNetwork() {
  ModelContext c;
  c.workload = modelWorkload("mlp");
  c.network = networkModel("sim:100Mbps,50us", 8);
  c.compute = computeTime(c.workload, 32, -1, 100);
  c.codec = [](const Compressor& k, const Workload& w) { return nominalCodec(k, w); };
  return c;
}

double seconds(const std::string& compress, const ModelContext& c) {
  return predictMethod({"bsp", "allreduce:ring", compress}, c).seconds;
}

TEST(modelWarmupCost, DgcPhasesAreItsScheduleDensities) {
  const auto phases = makeCompressor("dgc:0.001:warmup=4:stage=59")->warmupPhases();
  ASSERT_EQ(phases.size(), 4u);
  const double want[] = {0.251188643, 0.0630957344, 0.0158489319, 0.00398107171};
  for (size_t i = 0; i < phases.size(); ++i) {
    EXPECT_EQ(phases[i].steps, 59);
    EXPECT_NEAR(std::stod(phases[i].spec.substr(4)), want[i], 1e-8) << phases[i].spec;
  }
  EXPECT_TRUE(makeCompressor("dgc:0.001")->warmupPhases().empty());
  EXPECT_TRUE(makeCompressor("topk:0.01,ef")->warmupPhases().empty());
}

TEST(modelWarmupCost, ChargesEachStageForTheIterationsItCovers) {
  const ModelContext c = slowNetwork();
  const Method dgc{"bsp", "allreduce:ring", "dgc:0.001:warmup=2:stage=10"};
  // W = 2: densities R^(1/3) = 0.1 and R^(2/3) = 0.01.
  const double d0 = seconds("dgc:0.1", c), d01 = seconds("dgc:0.01", c);
  const double d1 = seconds("dgc:0.001", c);
  const double stage0 = seconds(makeCompressor(dgc.compress)->warmupPhases()[0].spec, c);
  const double stage1 = seconds(makeCompressor(dgc.compress)->warmupPhases()[1].spec, c);
  EXPECT_NEAR(stage0, d0, 1e-6 * d0);
  EXPECT_NEAR(stage1, d01, 1e-6 * d01);
  EXPECT_GT(stage0, stage1);
  EXPECT_GT(stage1, d1) << "the warm-up sends more than the final density";
  EXPECT_NEAR(meanTimePerIteration(dgc, c, 30), (10 * stage0 + 10 * stage1 + 10 * d1) / 30, 1e-12);
  EXPECT_NEAR(meanTimePerIteration(dgc, c, 15), (10 * stage0 + 5 * stage1) / 15, 1e-12);
  EXPECT_DOUBLE_EQ(meanTimePerIteration(dgc, c, NAN), predictMethod(dgc, c).seconds);
  const Method topk{"bsp", "allreduce:ring", "topk:0.01,ef"};
  EXPECT_DOUBLE_EQ(meanTimePerIteration(topk, c, 30), predictMethod(topk, c).seconds);
}

// post-local:T:H is BSP for its first T iterations: priced as BSP there,
// as Local SGD's steady state after; T in epochs needs the epoch's length.
TEST(modelWarmupCost, PostLocalSgdPricesItsBspPhaseAsBsp) {
  ModelContext c = slowNetwork();
  const double bsp = predictMethod({"bsp", "allreduce:ring", "none"}, c).seconds;
  const double local = predictMethod({"local:8", "allreduce:ring", "none"}, c).seconds;
  ASSERT_GT(bsp, 2 * local);
  const Method post{"post-local:100:8", "allreduce:ring", "none"};
  EXPECT_NEAR(meanTimePerIteration(post, c, 300), (100 * bsp + 200 * local) / 300, 1e-12);
  EXPECT_NEAR(meanTimePerIteration(post, c, 50), bsp, 1e-12);
  const Method epochs{"post-local:1ep:8", "allreduce:ring", "none"};
  EXPECT_NEAR(meanTimePerIteration(epochs, c, 300), local, 1e-12) << "T unknown: steady state";
  c.stepsPerEpoch = 234;
  EXPECT_NEAR(meanTimePerIteration(epochs, c, 300), (234 * bsp + 66 * local) / 300, 1e-12);
}

}  // namespace
}  // namespace tetrad::model
