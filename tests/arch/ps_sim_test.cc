// The parameter server on the SimGrid engine: averages equal the exact mean
// (dedicated and colocated, K = 1..3, partitions split), push/pull time
// equals its α–β formula on a contention-free star, the staleness bound of
// ssp holds where asp exceeds it, dead or silent peers are named, and with
// call checks on a worker averaging another bucket is named at once.
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>

#include "arch_test_util.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/transport/diagnostics.h"

namespace tetrad {
namespace {

using testing::ExchangeSetup;
using testing::valueOf;

constexpr double kAlpha = 25e-6;        // sim:...,25us
constexpr double kBeta = 1.0 / 1.25e9;  // 10 Gb/s

LaunchOptions star(int ranks, double timeout = 30) {
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = ranks;
  options.timeoutSeconds = timeout;
  options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  return options;
}

struct PsCase {
  int workers;
  std::string arch;
  int serverRanks;
};

class PsAverage : public ::testing::TestWithParam<PsCase> {};

TEST_P(PsAverage, EqualsTheExactMeanOnEveryWorker) {
  const PsCase& c = GetParam();
  const std::vector<size_t> buckets = {1000, 37, 2500};
  std::mutex mutex;
  int checked = 0;
  launch(star(c.workers + c.serverRanks), [&](Transport& world) {
    // 1 KiB partitions: every bucket but the small one is split.
    ExchangeSetup setup(world, c.workers, "bsp", buckets, "none", 1024);
    ExchangePtr exchange = makeExchange(c.arch, setup.context);
    if (exchange->isServerRank()) return exchange->serve(nullptr);
    exchange->start({});
    for (int round = 0; round < 3; ++round) {
      for (size_t b = 0; b < buckets.size(); ++b) {
        std::vector<float> values(buckets[b]);
        for (size_t i = 0; i < values.size(); ++i) {
          values[i] = valueOf(world.rank(), i + size_t(round));
        }
        const auto stream = round % 2 ? ExchangeStream::kModelChange : ExchangeStream::kGradients;
        exchange->average(stream, b, values);
        for (size_t i = 0; i < values.size(); ++i) {
          double mean = 0;
          for (int r = 0; r < c.workers; ++r) mean += valueOf(r, i + size_t(round));
          ASSERT_EQ(values[i], float(mean / c.workers)) << "rank " << world.rank() << " i " << i;
        }
      }
    }
    exchange->finish();
    std::lock_guard lock(mutex);
    ++checked;
  });
  EXPECT_EQ(checked, c.workers);
}

INSTANTIATE_TEST_SUITE_P(
    Sim, PsAverage,
    ::testing::Values(PsCase{1, "ps", 1}, PsCase{3, "ps", 1}, PsCase{4, "ps:2", 2},
                      PsCase{5, "ps:3", 3}, PsCase{1, "ps:colocated", 0},
                      PsCase{4, "ps:colocated", 0}, PsCase{5, "ps:2:colocated", 0}),
    [](const auto& info) {
      std::string name = std::to_string(info.param.workers) + "w_" + info.param.arch;
      for (char& ch : name) ch = ch == ':' ? '_' : ch;
      return name;
    });

// One average of n floats, one bucket, one partition per shard.
double timedAverage(int workers, const std::string& arch, int serverRanks, size_t n) {
  double elapsed = 0;
  launch(star(workers + serverRanks), [&](Transport& world) {
    ExchangeSetup setup(world, workers, "bsp", {n}, "none", n * 4 / (serverRanks ? 1 : workers));
    ExchangePtr exchange = makeExchange(arch, setup.context);
    if (exchange->isServerRank()) return exchange->serve(nullptr);
    exchange->start({});
    std::vector<float> values(n, 1.0f);
    const double start = world.now();
    exchange->average(ExchangeStream::kGradients, 0, values);
    if (world.rank() == 0) elapsed = world.now() - start;
    exchange->finish();
  });
  return elapsed;
}

TEST(PsTiming, DedicatedServerMatchesAlphaBeta) {
  const int w = 4;
  const size_t n = 1 << 18;
  // W pushes share the server's downlink, then W replies its uplink.
  const double push = 32 + 4.0 * n, reply = 40 + 4.0 * n;
  const double model = 2 * kAlpha + w * (push + reply) * kBeta;
  const double simulated = timedAverage(w, "ps", 1, n);
  EXPECT_NEAR(simulated / model, 1.0, 0.05) << simulated << " vs " << model;
}

TEST(PsTiming, ColocatedShardsMatchAlphaBeta) {
  const int w = 4;
  const size_t n = 1 << 18;
  // Each link carries W-1 pieces of n/W floats each way, twice.
  const double push = 32 + 4.0 * n / w, reply = 40 + 4.0 * n / w;
  const double model = 2 * kAlpha + (w - 1) * (push + reply) * kBeta;
  const double simulated = timedAverage(w, "ps:colocated", 0, n);
  EXPECT_NEAR(simulated / model, 1.0, 0.05) << simulated << " vs " << model;
}

// Push-pull: every worker pushes `steps` changes of (rank + 1) per element,
// worker `slow` computes `slowdown` times longer; returns the servers' stats.
ExchangeStats pushPullRun(const std::string& sync, int workers, int slow, double slowdown,
                          int64_t limit, std::vector<int64_t>* pushes = nullptr) {
  ExchangeStats stats;
  std::mutex mutex;
  if (pushes) pushes->assign(size_t(workers), 0);
  launch(star(workers + 1), [&](Transport& world) {
    ExchangeSetup setup(world, workers, sync, {64});
    setup.context.updateLimit = limit;
    ExchangePtr exchange = makeExchange("ps", setup.context);
    if (exchange->isServerRank()) {
      exchange->serve(nullptr);
      std::lock_guard lock(mutex);
      stats = exchange->stats();
      return;
    }
    std::vector<float> params(64, 0.0f), change(64, float(world.rank() + 1));
    exchange->start(params);
    int64_t steps = 0;
    while (true) {
      world.compute(world.rank() == slow ? 1e-3 * slowdown : 1e-3);
      PullResult pull = exchange->pushPull(change, params);
      ++steps;
      if (pull.stop) break;
    }
    exchange->finish();
    if (pushes) {
      std::lock_guard lock(mutex);
      (*pushes)[size_t(world.rank())] = steps;
    }
  });
  return stats;
}

TEST(PsPushPull, SspBoundHoldsWhereAspExceedsIt) {
  const ExchangeStats ssp = pushPullRun("ssp:1", 3, 2, 4.0, 60);
  ASSERT_FALSE(ssp.stalenessHistogram.empty());
  EXPECT_LE(ssp.stalenessHistogram.rbegin()->first, 1);
  EXPECT_GT(ssp.stalenessHistogram.at(1), 0);  // the bound is used, not just respected
  std::vector<int64_t> pushes;
  const ExchangeStats asp = pushPullRun("asp", 3, 2, 4.0, 60, &pushes);
  EXPECT_GT(asp.stalenessHistogram.rbegin()->first, 1);
  // The straggler does less of the work; the limit counts everyone's.
  EXPECT_LT(pushes[2] * 2, pushes[0]);
  EXPECT_GE(asp.updatesApplied, 60);
  EXPECT_LT(asp.updatesApplied, 60 + 3);
  // ssp:0 is lock-step: no staleness at all.
  const ExchangeStats lockstep = pushPullRun("ssp:0", 3, 2, 4.0, 30);
  EXPECT_EQ(lockstep.stalenessHistogram.size(), 1u);
  EXPECT_EQ(lockstep.stalenessHistogram.begin()->first, 0);
}

TEST(PsPushPull, ServersApplyEachChangeOverW) {
  // One worker: the weights are the sum of its changes (sequential SGD).
  std::vector<float> final;
  launch(star(2), [&](Transport& world) {
    ExchangeSetup setup(world, 1, "asp", {10});
    setup.context.updateLimit = 5;
    ExchangePtr exchange = makeExchange("ps", setup.context);
    if (exchange->isServerRank()) return exchange->serve(nullptr);
    std::vector<float> params(10, 2.0f), change(10, 0.5f);
    exchange->start(params);
    PullResult pull;
    while (!(pull = exchange->pushPull(change, params)).stop) {
    }
    EXPECT_EQ(pull.updatesApplied, 5);
    final = params;
    exchange->finish();
  });
  EXPECT_EQ(final, std::vector<float>(10, 2.0f + 5 * 0.5f));
}

TEST(PsFailures, SilentServerIsNamedByTheWorkers) {
  std::mutex mutex;
  std::vector<std::string> errors;
  EXPECT_THROW(launch(star(3, 2.0),
                      [&](Transport& world) {
                        ExchangeSetup setup(world, 2, "bsp", {100});
                        ExchangePtr exchange = makeExchange("ps", setup.context);
                        if (exchange->isServerRank()) return;  // never serves
                        std::vector<float> values(100, 1.0f);
                        try {
                          exchange->average(ExchangeStream::kGradients, 0, values);
                        } catch (const Error& e) {
                          std::lock_guard lock(mutex);
                          errors.push_back(e.what());
                          throw;
                        }
                      }),
               TimeoutError);
  ASSERT_FALSE(errors.empty());
  for (const std::string& e : errors) EXPECT_NE(e.find("rank 2"), std::string::npos) << e;
}

TEST(PsFailures, MissingWorkerIsNamedByTheServer) {
  std::string serverError;
  EXPECT_THROW(launch(star(3, 2.0),
                      [&](Transport& world) {
                        ExchangeSetup setup(world, 2, "bsp", {100});
                        ExchangePtr exchange = makeExchange("ps", setup.context);
                        if (exchange->isServerRank()) {
                          try {
                            exchange->serve(nullptr);
                          } catch (const Error& e) {
                            serverError = e.what();
                            throw;
                          }
                          return;
                        }
                        if (world.rank() == 1) return;  // dies before pushing
                        std::vector<float> values(100, 1.0f);
                        // Rank 0 gives up too, but stays around for the
                        // server's own timeout.
                        EXPECT_THROW(exchange->average(ExchangeStream::kGradients, 0, values),
                                     TimeoutError);
                        world.sleepFor(5);
                      }),
               TimeoutError);
  EXPECT_NE(serverError.find("parameter server shard 0 (rank 2)"), std::string::npos)
      << serverError;
  EXPECT_NE(serverError.find("worker 1"), std::string::npos) << serverError;
}

// With call checks on, a worker that averages another bucket is named with
// both calls on every worker at once, instead of leaving the shard waiting
// for a round that never completes.
TEST(PsFailures, AnotherBucketIsNamedWithBothCallsWhenChecked) {
  std::mutex mutex;
  std::vector<std::string> errors;
  launch(star(3, 2.0), [&](Transport& world) {
    world.diagnostics().setCheckCollectives(true);
    ExchangeSetup setup(world, 2, "bsp", {100, 37});
    ExchangePtr exchange = makeExchange("ps", setup.context);
    if (exchange->isServerRank()) {
      EXPECT_THROW(exchange->serve(nullptr), TimeoutError);  // the workers never finish
      return;
    }
    std::vector<float> first(100, 1.0f), second(37, 1.0f);
    exchange->average(ExchangeStream::kGradients, 0, first);  // #0 matches
    const size_t bucket = world.rank() == 0 ? 0 : 1;
    try {
      exchange->average(ExchangeStream::kGradients, bucket, bucket == 0 ? first : second);
      ADD_FAILURE() << "rank " << world.rank() << ": the mismatch went unnoticed";
    } catch (const ProtocolError& e) {
      std::lock_guard lock(mutex);
      errors.push_back(e.what());
    }
  });
  ASSERT_EQ(errors.size(), 2u);
  for (const std::string& e : errors) {
    EXPECT_NE(e.find("rank 0 calls exchange average #1 (ps:1, 100 x none, bucket 0 of the "
                     "gradients"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("rank 1 calls exchange average #1 (ps:1, 37 x none, bucket 1 of the "
                     "gradients"),
              std::string::npos)
        << e;
  }
}

TEST(PsFailures, BadLayoutsAreRefused) {
  EXPECT_THROW(launch(star(3),
                      [&](Transport& world) {
                        // ps:2 needs 2 + 2 ranks.
                        ExchangeSetup setup(world, 2, "bsp", {100});
                        makeExchange("ps:2", setup.context);
                      }),
               InvalidArgument);
  EXPECT_THROW(launch(star(2),
                      [&](Transport& world) {
                        ExchangeSetup setup(world, 2, "bsp", {100});
                        makeExchange("ps:3:colocated", setup.context);
                      }),
               InvalidArgument);
}

}  // namespace
}  // namespace tetrad
