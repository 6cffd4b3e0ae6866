// α–β exchange costs against collective_cost.h and hand-computed formulas.
#include <gtest/gtest.h>

#include <cmath>

#include "tetrad/collectives/collective_cost.h"
#include "tetrad/compress/powersgd.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/model/exchange_cost.h"
#include "tetrad/model/method_cost.h"
#include "tetrad/model/ps_cost.h"

namespace tetrad::model {
namespace {

ModelContext context(const Workload& workload, const std::string& cluster, int workers) {
  ModelContext c{workload, networkModel(cluster, workers), {0.01, "fixed"}, nullptr};
  c.codec = [](const Compressor& compressor, const Workload& w) {
    return nominalCodec(compressor, w);
  };
  return c;
}

// The non-finite guard (train's default) rides free on BSP's all-reduce of
// gradients (summable and gather compressors) and adds its one-float
// recursive-doubling all-gather to every other synchronous method, once per
// iteration (Local SGD too); ssp/asp check locally and pay nothing.
TEST(modelExchange, TheNonFiniteGuardCostsOneAllgatherOfOneFloatPerIteration) {
  ModelContext c = context(modelWorkload("mlp"), "sim:1Gbps,1ms", 8);
  const double guard =
      allgatherCost(AllgatherAlgorithm::kRecursiveDoubling, 8, 1, c.network.costParams());
  EXPECT_GT(guard, 3 * 1e-3);  // ⌈log2 8⌉ latencies
  EXPECT_DOUBLE_EQ(nonFiniteGuardSeconds(c.network), guard);
  // Where stop's word rides on the gradient exchange (bsp all-reduce with a
  // summable or gather compressor), the guard costs nothing.
  for (const Method& m : std::vector<Method>{{"bsp", "allreduce:ring", "topk:0.01,ef"},
                                             {"bsp", "allreduce:auto", "fp16"},
                                             {"bsp", "allreduce:ring", "none"}}) {
    c.nonFiniteGuard = false;
    const double without = predictMethod(m, c).seconds;
    c.nonFiniteGuard = true;
    EXPECT_DOUBLE_EQ(predictMethod(m, c).seconds, without) << m.label();
  }
  // Elsewhere it is its own round per iteration.
  for (const Method& m : std::vector<Method>{{"bsp", "allreduce:ring", "powersgd:2"},
                                             {"local:8", "allreduce:ring", "none"},
                                             {"bsp", "ps:2", "none"},
                                             {"bsp", "gossip:ring", "none"}}) {
    c.nonFiniteGuard = false;
    const Prediction without = predictMethod(m, c);
    c.nonFiniteGuard = true;
    const Prediction with = predictMethod(m, c);
    EXPECT_NEAR(with.seconds, without.seconds + guard, 1e-12) << m.label();
    EXPECT_NE(with.derivation.find("+ guard"), std::string::npos) << with.derivation;
  }
  const Method asp{"asp", "ps:2", "none"};
  c.nonFiniteGuard = false;
  const double aspWithout = predictMethod(asp, c).seconds;
  c.nonFiniteGuard = true;
  EXPECT_DOUBLE_EQ(predictMethod(asp, c).seconds, aspWithout);
}

// --bucket-size 0 (layer-wise): one bucket, hence one all-reduce, per tensor.
TEST(modelExchange, LayerWiseBucketsAreOneExchangePerTensor) {
  Workload w = modelWorkload("cnn");
  const NetworkModel net = networkModel("sim:1Gbps,50us", 8);
  const CompressorPtr fp16 = makeCompressor("fp16");
  const ExchangeEstimate fused = allreduceExchange(AllreduceAlgorithm::kRing, *fp16, w, net);
  w.bucketBytes = 0;
  const ExchangeEstimate layerWise = allreduceExchange(AllreduceAlgorithm::kRing, *fp16, w, net);
  EXPECT_EQ(fused.messages, 1u);
  EXPECT_EQ(layerWise.messages, w.tensors.size());
  // Seven more ring latencies each: 2·7·α per extra all-reduce, and more.
  EXPECT_GT(layerWise.seconds - fused.seconds, double(w.tensors.size() - 1) * 14 * 50e-6 * 0.99);
}

TEST(modelExchange, RingWithoutCompressionIsCollectiveCost) {
  for (const Workload& w : {modelWorkload("cnn"), parameterWorkload(100000000)}) {
    const NetworkModel net = networkModel("sim:1Gbps,50us", 8);
    const CompressorPtr none = makeCompressor("none");
    ASSERT_EQ(exchangeBuckets(w, kFusedBucketBytes).size(), 1u) << w.name;  // one fused bucket
    const double expected =
        allreduceCost(AllreduceAlgorithm::kRing, 8, w.parameters, net.costParams());
    EXPECT_DOUBLE_EQ(allreduceExchange(AllreduceAlgorithm::kRing, *none, w, net).seconds, expected);
    const Prediction p =
        predictMethod({"bsp", "allreduce:ring", "none"}, context(w, net.cluster, 8));
    EXPECT_DOUBLE_EQ(p.seconds, 0.01 + expected);
    EXPECT_DOUBLE_EQ(p.codecSeconds, 0);
  }
  // cnn, 8 ranks on 1 Gb/s: 2·7·(50 µs + ⌈1663370/8⌉·4 B / 125 MB/s).
  const double closed = 14 * (50e-6 + std::ceil(1663370.0 / 8) * 4 / 125e6);
  EXPECT_NEAR(allreduceExchange(AllreduceAlgorithm::kRing, *makeCompressor("none"),
                                modelWorkload("cnn"), networkModel("sim:1Gbps,50us", 8))
                  .seconds,
              closed, 1e-12);
}

TEST(modelExchange, GatherIsAnAllgatherOfPacketsPerBucket) {
  // Fused buckets for every compressor: the MLP is one bucket, one packet.
  const Workload mlp = modelWorkload("mlp");
  const NetworkModel net = networkModel("sim:10Gbps,25us", 4);
  const CompressorPtr topk = makeCompressor("topk:0.01,ef");
  const auto n = size_t(mlp.parameters);
  const double bytes = std::ceil(topk->bitsPerElement(n) * double(n) / 8);
  const ExchangeEstimate x = allreduceExchange(AllreduceAlgorithm::kTree, *topk, mlp, net);
  EXPECT_DOUBLE_EQ(x.seconds, 3 * (25e-6 + bytes / 1.25e9));
  EXPECT_EQ(x.decodesPerBucket, 4);
  EXPECT_EQ(x.messages, 1u);
  // The layer-wise ablation: one bucket per tensor.
  EXPECT_EQ(exchangeBuckets(mlp, 0).size(), mlp.tensors.size());
}

TEST(modelExchange, SixteenBitWireAndRandomK) {
  const Workload mlp = modelWorkload("mlp");
  const NetworkModel net = networkModel("sim:10Gbps,25us", 8);
  const auto n = size_t(mlp.parameters);
  const CompressorPtr rk = makeCompressor("randomk:0.01,ef");
  const double fp16 = allreduceCost(AllreduceAlgorithm::kRabenseifner, 8, n, net.costParams(),
                                    WirePrecision::kFloat16);
  const auto floats = size_t(std::ceil(packetBytes(*rk, n) / 4));
  const double randomk =
      allreduceCost(AllreduceAlgorithm::kRabenseifner, 8, floats, net.costParams());
  EXPECT_DOUBLE_EQ(
      allreduceExchange(AllreduceAlgorithm::kRabenseifner, *makeCompressor("fp16"), mlp, net)
          .seconds,
      fp16);
  EXPECT_DOUBLE_EQ(allreduceExchange(AllreduceAlgorithm::kRabenseifner, *rk, mlp, net).seconds,
                   randomk);
}

TEST(modelExchange, PowerSgdAllreducesPAndQ) {
  // One 1000×1000 matrix, rank 2: all-reduces of 2000 and 2000 floats.
  const Workload w = parameterWorkload(1000000);
  const NetworkModel net = networkModel("sim:10Gbps,25us", 8);
  const double expected = 2 * allreduceCost(AllreduceAlgorithm::kRing, 8, 2000, net.costParams());
  EXPECT_DOUBLE_EQ(
      allreduceExchange(AllreduceAlgorithm::kRing, *makeCompressor("powersgd:2"), w, net).seconds,
      expected);
  // The cnn in one fused bucket: every matrix's P (and the biases) in one
  // all-reduce, every Q in another; batched: one square of side ⌈√n⌉.
  const Workload cnn = modelWorkload("cnn");
  const std::vector<BucketRange> buckets = exchangeBuckets(cnn, kFusedBucketBytes);
  ASSERT_EQ(buckets.size(), 1u);
  CompressorState state;
  state.layout = buckets[0].tensorShapes;
  const PowerSgdPlan plan = powerSgdPlan(state, buckets[0].count, 2, false);
  EXPECT_EQ(plan.matrices.size(), 4u);  // conv1, conv2, fc1, fc2 weights
  const double perTensor =
      allreduceCost(AllreduceAlgorithm::kRing, 8, plan.pFloats + plan.rawFloats, net.costParams()) +
      allreduceCost(AllreduceAlgorithm::kRing, 8, plan.qFloats, net.costParams());
  const ExchangeEstimate x =
      allreduceExchange(AllreduceAlgorithm::kRing, *makeCompressor("powersgd:2"), cnn, net);
  EXPECT_DOUBLE_EQ(x.seconds, perTensor);
  EXPECT_EQ(x.messages, 2u);
  const auto side = size_t(std::ceil(std::sqrt(double(cnn.parameters))));
  EXPECT_DOUBLE_EQ(
      allreduceExchange(AllreduceAlgorithm::kRing, *makeCompressor("powersgd:2:batched"), cnn, net)
          .seconds,
      2 * allreduceCost(AllreduceAlgorithm::kRing, 8, side * 2, net.costParams()));
}

TEST(modelExchange, ParameterServerMatchesTheDocumentedFormula) {
  // One 1M-float tensor: partitions of ≤ 4 MiB (1 of 4,000,000 B), W = 4.
  const Workload w = parameterWorkload(1000000);
  const NetworkModel net = networkModel("sim:1Gbps,50us", 4);
  const CompressorPtr none = makeCompressor("none");
  const double push = 16 + packetBytes(*none, 1000000), pull = 24 + 16 + 4e6;
  const PsEstimate dedicated = psExchange(1, false, *none, w, net);
  EXPECT_DOUBLE_EQ(dedicated.exchange.seconds, 2 * 50e-6 + (4 * push + 4 * pull) / 125e6);
  EXPECT_DOUBLE_EQ(dedicated.linkBoundSeconds, 4 * pull / 125e6);
  EXPECT_DOUBLE_EQ(dedicated.roundTripSeconds, 2 * 50e-6 + (push + pull) / 125e6);
  // Colocated, K = W = 4, a 16 MiB tensor in four 4 MiB partitions, one
  // per shard: each link carries (W−1) pieces each way, (W−1)/W of the model.
  const Workload big = parameterWorkload(4 * 1048576);
  const double piecePush = 16 + packetBytes(*none, 1048576), piecePull = 24 + 16 + 4.0 * 1048576;
  const PsEstimate colocated = psExchange(4, true, *none, big, net);
  EXPECT_EQ(colocated.exchange.messages, 4u);
  EXPECT_DOUBLE_EQ(colocated.exchange.seconds, 2 * 50e-6 + (3 * piecePush + 3 * piecePull) / 125e6);
  EXPECT_THROW(psExchange(4, true, *none, w, net), InvalidArgument);  // 1 partition, 4 shards
}

// A shard and a worker post one receive per peer, so a worker's partitions
// for one shard travel one after another, and so do the replies. The mlp on
// ps:2: fc1.weight alone on one shard, its five other tensors on the other,
// whose chain costs 6α: at 1 ms that, not the two phases' 2α, is the
// exchange (timing-only runs measured 6.6α per iteration; the survey map's
// PS-BSP went from 0.67× to 0.99–1.00× its retimed time). On 10 Gb/s the
// busiest link, fc1.weight's, decides as before.
TEST(modelExchange, ParameterServerPartitionsOfOneShardTravelOneAfterAnother) {
  const Workload mlp = modelWorkload("mlp");
  const CompressorPtr none = makeCompressor("none");
  const NetworkModel slowLatency = withNetModel(networkModel("sim:100Gbps,1ms", 8), "cm02");
  const PsEstimate chained = psExchange(2, false, *none, mlp, slowLatency);
  EXPECT_GE(chained.exchange.seconds, 6e-3);
  EXPECT_LT(chained.exchange.seconds, 6.5e-3);
  EXPECT_NE(chained.exchange.text.find("5 partitions one after another"), std::string::npos)
      << chained.exchange.text;
  EXPECT_GE(chained.roundTripSeconds, 6e-3);  // ssp/asp: a worker's own step, too
  const NetworkModel slowLink = withNetModel(networkModel("sim:10Gbps,1ms", 8), "cm02");
  const PsEstimate linkBound = psExchange(2, false, *none, mlp, slowLink);
  EXPECT_EQ(linkBound.exchange.text.find("one after another"), std::string::npos)
      << linkBound.exchange.text;
  EXPECT_GT(linkBound.exchange.seconds, chained.exchange.seconds);
}

TEST(modelExchange, LocalSgdDividesTheExchangeByItsPeriod) {
  const ModelContext c = context(modelWorkload("cnn"), "sim:1Gbps,50us", 8);
  const Prediction bsp = predictMethod({"bsp", "allreduce:ring", "none"}, c);
  const Prediction local = predictMethod({"local:4", "allreduce:ring", "none"}, c);
  EXPECT_DOUBLE_EQ(local.commSeconds, bsp.commSeconds / 4);
  EXPECT_DOUBLE_EQ(local.seconds, 0.01 + bsp.commSeconds / 4);
  ASSERT_FALSE(local.flags.empty());
  EXPECT_EQ(local.flags[0], "costs accuracy: fewer averages");
}

// accum:K: one BSP exchange per K micro-batches, and the non-finite guard's
// word rides on it (no round of its own), as on BSP's.
TEST(modelExchange, GradientAccumulationDividesTheExchangeByK) {
  ModelContext c = context(modelWorkload("cnn"), "sim:1Gbps,50us", 8);
  c.nonFiniteGuard = true;
  const Prediction bsp = predictMethod({"bsp", "allreduce:ring", "none"}, c);
  const Prediction accum = predictMethod({"accum:4", "allreduce:ring", "none"}, c);
  EXPECT_DOUBLE_EQ(accum.commSeconds, bsp.commSeconds / 4);
  EXPECT_EQ(accum.derivation.find("guard"), std::string::npos) << accum.derivation;
  EXPECT_TRUE(accum.flags.empty());
}

TEST(modelExchange, RefusesWhatTrainRefuses) {
  const ModelContext c = context(modelWorkload("cnn"), "sim:1Gbps,50us", 8);
  EXPECT_THROW(predictMethod({"ssp:4", "allreduce:ring", "none"}, c), InvalidArgument);
  EXPECT_THROW(predictMethod({"bsp", "ps:1", "powersgd:2"}, c), InvalidArgument);
  EXPECT_THROW(predictMethod({"bsp", "allreduce:native", "none"}, c), Error);
}

}  // namespace
}  // namespace tetrad::model
