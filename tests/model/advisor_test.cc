// The advisor's ranking: textbook cases, order, skipped points, codec
// measurement and validation against measured clusters.
#include "tetrad/model/advisor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/model/validation.h"

namespace tetrad::model {
namespace {

CodecCost nominal(const Compressor& compressor, const Workload& w) {
  return nominalCodec(compressor, w);
}

ModelContext context(const Workload& workload, const std::string& cluster, int workers) {
  ModelContext c{workload, networkModel(cluster, workers), {}, nominal};
  c.compute = computeTime(workload, 64, -1, 100);
  return c;
}

TEST(modelAdvisor, LargeModelOnSlowNetworkRanksACompressedMethodFirst) {
  const Ranking r =
      rankMethods(candidateMethods(1), context(parameterWorkload(100000000), "sim:1Gbps,50us", 8));
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_NE(r.ranked.front().method.compress, "none") << r.ranked.front().method.label();
}

TEST(modelAdvisor, SmallModelOnFastNetworkRanksNoCompressionFirst) {
  const Ranking r =
      rankMethods(candidateMethods(1), context(modelWorkload("mlp"), "sim:100Gbps,5us", 8));
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_EQ(r.ranked.front().method.compress, "none") << r.ranked.front().method.label();
  // Among plain BSP all-reduce methods too.
  for (const Prediction& p : r.ranked) {
    if (p.method.sync != "bsp" || !p.method.arch.starts_with("allreduce:")) continue;
    EXPECT_EQ(p.method.compress, "none") << p.method.label();
    break;
  }
}

TEST(modelAdvisor, RankingIsSortedAndEveryCandidateIsAccountedFor) {
  const std::vector<Method> candidates = candidateMethods(2);
  const Ranking r = rankMethods(candidates, context(modelWorkload("cnn"), "sim:1Gbps,50us", 8));
  EXPECT_EQ(r.ranked.size() + r.skipped.size(), candidates.size());
  EXPECT_GE(r.ranked.size(), 50u);
  for (size_t i = 1; i < r.ranked.size(); ++i) {
    EXPECT_LE(r.ranked[i - 1].seconds, r.ranked[i].seconds);
  }
  const std::vector<std::string> lines = formatRanking(r, {});
  ASSERT_EQ(lines.size(), r.ranked.size());
  double last = 0;
  for (const std::string& line : lines) {
    const double ms = std::stod(line.substr(5, 11));
    EXPECT_GE(ms, last) << line;
    last = ms;
  }
  // Every prediction is compute + codec + comm (the derivation's terms).
  for (const Prediction& p : r.ranked) {
    if (p.method.sync == "ssp:4" || p.method.sync == "asp") continue;  // a max()
    EXPECT_NEAR(p.seconds, p.computeSeconds + p.codecSeconds + p.commSeconds, 1e-12);
  }
}

TEST(modelAdvisor, FlagsAndGossip) {
  const Ranking r = rankMethods({{"bsp", "allreduce:ring", "topk:0.01,ef"},
                                 {"asp", "ps:1", "none"},
                                 {"bsp", "gossip:exp", "none"},
                                 {"bsp", "allreduce:ring", "fp16"}},
                                context(modelWorkload("cnn"), "sim:10Gbps,25us", 8));
  ASSERT_EQ(r.ranked.size(), 4u);
  for (const Prediction& p : r.ranked) {
    if (p.method.compress == "fp16") {
      EXPECT_TRUE(p.flags.empty());
    }
    if (p.method.compress == "topk:0.01,ef") {
      EXPECT_EQ(p.flags, std::vector<std::string>{"costs accuracy: biased compression"});
    }
    if (p.method.sync == "asp") {
      EXPECT_EQ(p.flags, std::vector<std::string>{"costs accuracy: staleness"});
    }
    if (p.method.arch == "gossip:exp") {
      EXPECT_EQ(p.flags, std::vector<std::string>{"costs accuracy: neighbour averages only"});
      // α + d·4n·β with d = 5 on 8 ranks.
      EXPECT_NEAR(p.commSeconds, 25e-6 + 5 * 4.0 * 1663370 / 1.25e9, 1e-12);
    }
  }
}

TEST(modelAdvisor, TimeToTargetIsTimePerIterationTimesMultiplier) {
  const std::vector<Method> methods = {{"bsp", "allreduce:ring", "none"},
                                       {"bsp", "allreduce:ring", "qsgd:16"},
                                       {"bsp", "allreduce:ring", "sign"},
                                       {"local:4", "allreduce:ring", "none"},
                                       {"bsp", "allreduce:ring", "topk:0.01,ef"}};
  const Ranking r = rankMethods(methods, context(modelWorkload("cnn"), "sim:1Gbps,50us", 8));
  ASSERT_EQ(r.ranked.size(), methods.size());
  const CompressionErrorFunction fixture = [](const Compressor& c) {
    return c.unbiased() ? 3.0 : 0.75;  // ω = 3, δ = 0.25
  };
  const TargetRanking t = rankByTimeToTarget(r, 8, 1, 0.9, fixture);
  ASSERT_EQ(t.covered.size(), 4u);
  ASSERT_EQ(t.uncovered.size(), 1u);
  EXPECT_EQ(t.uncovered[0].perIteration.method.compress, "sign");
  EXPECT_EQ(t.uncovered[0].seconds, t.uncovered[0].perIteration.seconds);
  for (size_t i = 0; i < t.covered.size(); ++i) {
    const TargetPrediction& p = t.covered[i];
    if (i > 0) {
      EXPECT_LE(t.covered[i - 1].seconds, p.seconds);
    }
    EXPECT_DOUBLE_EQ(p.seconds, p.perIteration.seconds * p.iterations.multiplier);
    if (p.perIteration.method.compress == "qsgd:16") {
      EXPECT_DOUBLE_EQ(p.iterations.multiplier, 2.6875);  // ((1 + 3/8) + 4)/2
    }
  }
  const std::vector<std::string> lines = formatTargetRanking(t, {});
  ASSERT_EQ(lines.size(), 6u);  // 4 covered, the header, 1 uncovered
  EXPECT_EQ(lines[4], kNoTheoryHeader);
  EXPECT_NE(lines[5].find("× ? iterations [no theory: "), std::string::npos) << lines[5];
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(std::stod(lines[i].substr(5, 11)), t.covered[i].seconds * 1e3, 1e-3) << lines[i];
  }
}

TEST(modelAdvisor, MeasuredCodecRunsTheCompressor) {
  const Workload mlp = modelWorkload("mlp");
  const CodecCost topk = measureCodec(*makeCompressor("topk:0.01,ef"), mlp, 1);
  EXPECT_TRUE(topk.measured);
  EXPECT_GT(topk.encodeSeconds, 0);
  EXPECT_GT(topk.decodeSeconds, 0);
  const CodecCost none = measureCodec(*makeCompressor("none"), mlp, 1);
  EXPECT_EQ(none.encodeSeconds, 0);
  // Nominal: error feedback adds the inner decode and one memory pass.
  const CodecCost plain = nominalCodec(*makeCompressor("topk:0.01"), mlp);
  const CodecCost ef = nominalCodec(*makeCompressor("topk:0.01,ef"), mlp);
  EXPECT_DOUBLE_EQ(ef.encodeSeconds, plain.encodeSeconds + plain.decodeSeconds +
                                         4.0 * 235146 / kMemoryPassBytesPerSecond);
}

MeasuredCluster cluster(const std::string& label, const std::string& spec, double bspTime,
                        double fp16Time) {
  MeasuredCluster c{label, spec, 4, "mlp", 0.7, 0.002, {}};
  // Measured: fp16 takes 2 ms per iteration, bsp 1 ms (so bsp needs 120
  // iterations to the target on "slow", fp16 40).
  c.methods.push_back({"bsp", {"bsp", "allreduce:ring", "none"}, true, 0.81, bspTime, 0.001});
  c.methods.push_back({"fp16", {"bsp", "allreduce:ring", "fp16"}, false, 0.80, fp16Time, 0.002});
  return c;
}

TEST(modelValidation, PenaltiesAndAgreement) {
  const std::vector<MeasuredCluster> clusters = {cluster("slow", "sim:1Gbps,50us", 0.12, 0.08),
                                                 cluster("fast", "sim:100Gbps,5us", 0.06, 0.05),
                                                 cluster("none", "sim:100Gbps,5us", NAN, NAN)};
  const PenaltyTable penalties = measuredPenalties(clusters);
  ASSERT_TRUE(penalties.contains("bsp allreduce:ring fp16"));
  EXPECT_NEAR(penalties.at("bsp allreduce:ring fp16").mean, -0.01, 1e-12);
  EXPECT_EQ(penalties.at("bsp allreduce:ring fp16").clusters, 3);

  auto fallback = [](const Workload& w) { return computeTime(w, 64, -1, 100); };
  const Agreement a = compareWithResults(clusters, fallback, nominal);
  ASSERT_EQ(a.clusters.size(), 3u);
  // 1 Gb/s: fp16 halves a bandwidth-bound exchange; 100 Gb/s: its extra
  // per-tensor messages and codec lose to one fused bucket.
  EXPECT_EQ(a.clusters[0].advised, "fp16");
  EXPECT_TRUE(a.clusters[0].agree);
  EXPECT_EQ(a.clusters[1].advised, "bsp");
  EXPECT_FALSE(a.clusters[1].agree);
  EXPECT_FALSE(a.clusters[2].counted);
  EXPECT_EQ(a.counted, 2);
  EXPECT_EQ(a.agreed, 1);
  // With the measured iterations (bsp 60, fp16 25 on "fast"), fp16's fewer
  // iterations outweigh its dearer ones: the pick is the measured fastest.
  EXPECT_EQ(a.clusters[1].advisedToTarget, "fp16");
  EXPECT_TRUE(a.clusters[1].agreeToTarget);
  EXPECT_EQ(a.clusters[0].advisedToTarget, "fp16");
  EXPECT_EQ(a.agreedToTarget, 2);
  // The pick is the smallest product of its own prediction and iterations.
  auto product = [&](size_t c, size_t m) {
    const MeasuredMethod& x = clusters[c].methods[m];
    ModelContext context;
    context.workload = modelWorkload("mlp");
    context.network = networkModel(clusters[c].spec, clusters[c].workers);
    context.codec = nominal;
    context.compute = {clusters[c].computePerIter, "measured"};
    return predictMethod(x.method, context).seconds * (x.timeToTarget / x.timePerIter);
  };
  EXPECT_DOUBLE_EQ(a.clusters[1].advisedToTargetSeconds, product(1, 1));
  EXPECT_LT(product(1, 1), product(1, 0));
  const std::vector<std::string> lines = formatAgreement(a);
  EXPECT_EQ(lines.back(),
            "agreement: 1 of 2 clusters per iteration, 2 of 2 with measured iterations to target");
}

}  // namespace
}  // namespace tetrad::model
