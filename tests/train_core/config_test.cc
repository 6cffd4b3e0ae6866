// Config resolution, learning-rate schedules and compute-time models.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/loop/lr_schedule.h"
#include "tetrad/train/train_config.h"

namespace tetrad::train {
namespace {

template <typename E, typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "(expected error not thrown)";
}

std::string resolveError(void (*edit)(TrainConfig&)) {
  TrainConfig c;
  edit(c);
  return errorOf<InvalidArgument>([&] { resolveConfig(c); });
}
std::string unsupportedError(void (*edit)(TrainConfig&)) {
  TrainConfig c;
  edit(c);
  return errorOf<Unsupported>([&] { resolveConfig(c); });
}

TEST(TrainConfig, DefaultsResolve) {
  TrainConfig c;
  ResolvedConfig r = resolveConfig(c);
  EXPECT_EQ(r.allreduce, AllreduceAlgorithm::kAuto);
  EXPECT_FALSE(r.mpi);
  auto j = nlohmann::json::parse(configToJson(r, 4));
  EXPECT_EQ(j["arch"], "allreduce:auto");
  EXPECT_EQ(j["codec_cost"], "auto");
  EXPECT_EQ(j["codec_charge"], "measured");  // --compute measured
  EXPECT_EQ(j["sync"], "bsp");
  EXPECT_EQ(j["sched"], "none");
  EXPECT_EQ(j["global_batch_size"], 256);
  EXPECT_EQ(j["workers"], 4);
}

TEST(TrainConfig, CodecCostFollowsTheComputeModelAndRefusesBadProfiles) {
  TrainConfig c;
  c.compress = "topk:0.01,ef";
  c.compute = "flops:100";
  EXPECT_EQ(resolveConfig(c).codecCharge.describe().substr(0, 16), "profile host-cpu");
  c.codecCost = "none";
  EXPECT_EQ(resolveConfig(c).codecCharge.mode, CodecChargeSpec::Mode::kNone);
  c.timingOnly = true;
  c.codecCost = "measured";
  EXPECT_NE(errorOf<InvalidArgument>([&] { resolveConfig(c); }).find("no values to encode"),
            std::string::npos);
  c.codecCost = "profile:/nonexistent.json";
  EXPECT_NE(errorOf<InvalidArgument>([&] { resolveConfig(c); }).find("cannot read"),
            std::string::npos);
  c.codecCost = "later";
  EXPECT_NE(errorOf<InvalidArgument>([&] { resolveConfig(c); }).find("--codec-cost 'later'"),
            std::string::npos);
  // v100's published figures do not cover Top-k: refused, not charged zero.
  c.codecCost = "profile:v100";
  EXPECT_NE(errorOf<InvalidArgument>([&] { resolveConfig(c); }).find("no entry for compressor"),
            std::string::npos);
  c.timingOnly = false;
  c.cluster = "mpi";
  c.compute = "measured";
  c.codecCost = "profile:host-cpu";
  EXPECT_NE(errorOf<InvalidArgument>([&] { resolveConfig(c); }).find("under MPI"),
            std::string::npos);
}

TEST(TrainConfig, EveryAllreduceAlgorithmIsAccepted) {
  for (const char* algo : {"ring", "rd", "rabenseifner", "tree", "hierarchical"}) {
    TrainConfig c;
    c.arch = std::string("allreduce:") + algo;
    EXPECT_EQ(resolveConfig(c).arch.canonical, std::string("allreduce:") + algo);
  }
  TrainConfig native;
  native.arch = "allreduce:native";
  EXPECT_THROW(resolveConfig(native), Unsupported);  // simulated cluster
  native.cluster = "mpi";
  EXPECT_NO_THROW(resolveConfig(native));
}

TEST(TrainConfig, BadValuesAreClearErrors) {
  EXPECT_NE(resolveError([](TrainConfig& c) { c.model = "vgg99"; }).find("unknown --model 'vgg99'"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.compress = "topk:0"; }).find("(0, 1]"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.compress = "topk:1.5"; }).find("(0, 1]"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.workers = 0; }).find("invalid --workers 0"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.data = "imagenet"; }).find("unknown --data"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.batchSize = 0; }).find("--batch-size"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.momentum = 1; }).find("--momentum"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.arch = "allreduce:magic"; }).find("magic"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.cluster = "cloud"; }).find("cloud"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.lrSchedule = "linear"; }).find("--lr-schedule"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.compute = "fast"; }).find("--compute"),
            std::string::npos);
  EXPECT_NE(
      resolveError([](TrainConfig& c) { c.workers = 2, c.stragglers = {"2:3"}; }).find("rank 2"),
      std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.sync = "bulk"; }).find("--sync"),
            std::string::npos);
}

// Signum keeps its own momentum before the sign (compress/sign.h): its runs
// use SGD momentum 0, the default --momentum included; another is refused.
TEST(TrainConfig, SignumRunsWithoutSgdMomentum) {
  TrainConfig c;
  c.compress = "sign:momentum=0.9";
  ASSERT_GT(c.momentum, 0.0);  // the default
  const ResolvedConfig r = resolveConfig(c);
  EXPECT_EQ(r.given.momentum, 0.0);
  EXPECT_EQ(nlohmann::json::parse(configToJson(r, 4))["momentum"], 0.0);
  c.momentum = 0;
  EXPECT_EQ(resolveConfig(c).given.momentum, 0.0);
  c.compress = "sign:momentum=0.5,ef";
  EXPECT_EQ(resolveConfig(c).given.momentum, 0.0);
  const std::string refused = resolveError([](TrainConfig& t) {
    t.compress = "sign:momentum=0.9";
    t.momentum = 0.5;
  });
  EXPECT_NE(refused.find("--compress sign:momentum=0.9 applies momentum itself"), std::string::npos)
      << refused;
  EXPECT_NE(refused.find("give --momentum 0"), std::string::npos) << refused;
  // So does DGC (momentum correction), read from Compressor::ownMomentum().
  TrainConfig dgc;
  dgc.compress = "dgc:0.01";
  EXPECT_EQ(resolveConfig(dgc).given.momentum, 0.0);
  // Plain signSGD keeps the optimizer's momentum (after the vote).
  TrainConfig plain;
  plain.compress = "sign";
  EXPECT_EQ(resolveConfig(plain).given.momentum, plain.momentum);
  EXPECT_NE(resolveError([](TrainConfig& t) {
              t.compress = "sign:momentum=1.5";
            }).find("momentum must be a number in (0, 1), got '1.5'"),
            std::string::npos);
}

TEST(TrainConfig, PlannedCombinationsAreUnsupportedNotFallbacks) {
  EXPECT_NE(unsupportedError([](TrainConfig& c) {
              c.timeline = "on";
              c.timingOnly = true;
            }).find("--timeline on with --timing-only"),
            std::string::npos);
  EXPECT_NE(unsupportedError([](TrainConfig& c) {
              c.cluster = "mpi";
              c.compute = "fixed:10ms";
            }).find("simulated"),
            std::string::npos);
}

TEST(TrainConfig, EveryValidPointResolves) {
  const char* syncs[] = {"bsp",     "ssp:0",           "ssp:3",           "asp",
                         "local:4", "post-local:10:4", "post-local:1ep:2"};
  for (const char* sync : syncs) {
    for (const char* arch : {"ps", "ps:2", "ps:colocated", "ps:3:colocated"}) {
      TrainConfig c;
      c.sync = sync;
      c.arch = arch;
      c.compress = "qsgd:16";
      EXPECT_NO_THROW(resolveConfig(c)) << sync << " " << arch;
    }
  }
  for (const char* sync : {"bsp", "local:4", "post-local:10:4"}) {
    TrainConfig c;
    c.sync = sync;
    c.compress = "topk:0.01,ef";
    EXPECT_NO_THROW(resolveConfig(c)) << sync;
    c.arch = "gossip:ring";
    c.gossip = "choco:0.1";
    EXPECT_NO_THROW(resolveConfig(c)) << sync << " gossip";
  }
  TrainConfig adpsgd;  // AD-PSGD
  adpsgd.sync = "asp";
  adpsgd.arch = "gossip:exp";
  EXPECT_NO_THROW(resolveConfig(adpsgd));
  TrainConfig ps;
  ps.sync = "ssp:2";
  ps.arch = "ps:2";
  ResolvedConfig r = resolveConfig(ps);
  EXPECT_EQ(r.arch.serverRanks, 2);
  EXPECT_EQ(worldSizeFor(r, 4), 6);
  ps.arch = "ps:colocated";
  EXPECT_EQ(worldSizeFor(resolveConfig(ps), 4), 4);
}

TEST(TrainConfig, InvalidCombinationsNameTheRule) {
  EXPECT_NE(
      resolveError([](TrainConfig& c) { c.sync = "asp"; }).find("rule: ssp and asp run on ps"),
      std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.sync = "ssp:2"; }).find("--arch ps"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.sync = "ssp:-1"; }).find("ssp:-1"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.sync = "local:0"; }).find("period H"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.sync = "post-local:x:4"; }).find("post-local:x"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.arch = "ps:0"; }).find("shard count"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.arch = "ps:2";
              c.compress = "powersgd:2";
            }).find("own all-reduce protocol"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.psPullCompress = "fp16"; }).find("--arch ps only"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.psPartition = "2B"; }).find("--ps-partition"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.sync = "bulk"; }).find("known: bsp"),
            std::string::npos);
  // Gossip rules.
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.sync = "ssp:2";
              c.arch = "gossip:ring";
            }).find("rule: ssp runs on ps; asp on gossip is AD-PSGD"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.sync = "asp";
              c.arch = "gossip:ring";
              c.compress = "fp16";
            }).find("only none is accepted"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.sync = "asp";
              c.arch = "gossip:ring";
              c.gossip = "choco:0.5";
            }).find("rule: AD-PSGD takes no --gossip"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.arch = "gossip:ring";
              c.compress = "topk:0.1";
            }).find("--gossip choco:GAMMA"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.arch = "gossip:ring";
              c.gossip = "choco:1.5";
            }).find("(0, 1]"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.arch = "gossip:torus:3x3";
              c.workers = 8;
            }).find("invalid topology 'torus:3x3'"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) { c.gossip = "choco:0.5"; }).find("--arch gossip"),
            std::string::npos);
  EXPECT_NE(resolveError([](TrainConfig& c) {
              c.arch = "gossip:ring";
              c.sync = "ssp:1";
            }).find("ssp runs on ps"),
            std::string::npos);
}

TEST(TrainConfig, BucketSizes) {
  EXPECT_EQ(bucketBytes("auto"), 25u << 20);
  EXPECT_EQ(bucketBytes("0"), 0u);  // layer-wise: one bucket per tensor
  EXPECT_EQ(bucketBytes("4MiB"), 4u << 20);
  EXPECT_THROW(bucketBytes("big"), InvalidArgument);
}

TEST(LrSchedule, WarmupStepAndCosine) {
  LrSchedule constant(parseLrSchedule("constant"), 0.1, 0, 10, 100);
  EXPECT_DOUBLE_EQ(constant.at(57), 0.1);
  LrSchedule warm(parseLrSchedule("constant"), 0.4, 0.5, 10, 100);  // 5 warm-up steps
  EXPECT_DOUBLE_EQ(warm.at(0), 0.08);
  EXPECT_DOUBLE_EQ(warm.at(4), 0.4);
  EXPECT_DOUBLE_EQ(warm.at(5), 0.4);
  LrSchedule step(parseLrSchedule("step:2,4:0.5"), 1.0, 0, 10, 100);
  EXPECT_DOUBLE_EQ(step.at(19), 1.0);
  EXPECT_DOUBLE_EQ(step.at(20), 0.5);
  EXPECT_DOUBLE_EQ(step.at(45), 0.25);
  EXPECT_EQ(parseLrSchedule("step:3").gamma, 0.1);
  LrSchedule cosine(parseLrSchedule("cosine"), 1.0, 0, 10, 101);
  EXPECT_DOUBLE_EQ(cosine.at(0), 1.0);
  EXPECT_NEAR(cosine.at(50), 0.5, 1e-12);
  EXPECT_NEAR(cosine.at(100), 0.0, 1e-12);
  EXPECT_THROW(parseLrSchedule("step:4,2"), InvalidArgument);
  EXPECT_THROW(parseLrSchedule("step:2:0"), InvalidArgument);
}

TEST(ComputeModel, ParsesAndCharges) {
  ComputeTimer measured(parseComputeSpec("measured"), 1, 0, 1, 0);
  EXPECT_DOUBLE_EQ(measured.charge(0.02, 1e9, true), 0.02);
  ComputeTimer scaled(parseComputeSpec("measured*0.25"), 2, 0, 1, 0);  // straggler x2
  EXPECT_DOUBLE_EQ(scaled.charge(0.02, 1e9, true), 0.01);
  ComputeTimer fixed(parseComputeSpec("fixed:50ms"), 1, 0, 1, 0);
  EXPECT_DOUBLE_EQ(fixed.charge(0.02, 1e9, true), 0.05);
  EXPECT_DOUBLE_EQ(fixed.charge(0.02, 1e9, false), 0.0);
  ComputeTimer flops(parseComputeSpec("flops:100"), 1, 0, 1, 0);
  EXPECT_DOUBLE_EQ(flops.charge(0.02, 5e9, true), 0.05);
  // Lognormal noise: mean one, not constant.
  ComputeTimer noisy(parseComputeSpec("fixed:1s"), 1, 0.3, 1, 2);
  double sum = 0, first = noisy.charge(0, 0, true), differs = 0;
  for (int i = 0; i < 20000; ++i) {
    double v = noisy.charge(0, 0, true);
    sum += v;
    differs += v != first;
  }
  EXPECT_NEAR(sum / 20000, 1.0, 0.02);
  EXPECT_GT(differs, 19000);
  EXPECT_THROW(parseComputeSpec("measured*0"), InvalidArgument);
  EXPECT_THROW(parseComputeSpec("flops:-1"), InvalidArgument);
  EXPECT_THROW(parseStraggler("3"), InvalidArgument);
  EXPECT_EQ(parseStraggler("3:2.5").rank, 3);
}

}  // namespace
}  // namespace tetrad::train
