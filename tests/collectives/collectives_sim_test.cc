// Collectives on the SimGrid engine: correctness sweeps (every collective,
// algorithm, world size 1..9 and length), α–β timing on a contention-free
// star, determinism, traffic accounting, payload-free mode and bad inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>

#include "collective_checks.h"
#include "reference.h"
#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/collectives/partition.h"
#include "tetrad/collectives/reduce_scatter.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

// Ten gigabit, 25 microseconds: α and β of "sim:...10Gbps,25us".
constexpr double kAlpha = 25e-6;
constexpr double kBeta = 1.0 / 1.25e9;

using testing::starCluster;

// ---------------------------------------------------------------------------
// Correctness sweep: world sizes 1..9 on a two-level cluster of 3 nodes x 3
// ranks (so hierarchical all-reduce has real nodes, the last one partial).
class CollectivesSimSweep : public ::testing::TestWithParam<int> {};

TEST_P(CollectivesSimSweep, EveryCollectiveMatchesItsReference) {
  const int p = GetParam();
  LaunchOptions options;
  options.cluster = "sim:3x3:100Gbps,1us:10Gbps,25us";
  options.workers = p;
  options.timeoutSeconds = 60;
  testing::CheckPlan plan;
  plan.lengths = testing::standardLengths(p, 100003);
  std::mutex mutex;
  std::vector<std::string> failures;
  int ranksPerNode = 0;
  launch(options, [&](Transport& transport) {
    std::vector<std::string> mine = testing::runCollectiveChecks(transport, plan);
    std::lock_guard<std::mutex> lock(mutex);
    ranksPerNode = transport.ranksPerNode();
    failures.insert(failures.end(), mine.begin(), mine.end());
  });
  EXPECT_EQ(ranksPerNode, 3);
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, CollectivesSimSweep, ::testing::Range(1, 10));

// Larger worlds on a star (one rank per node), without the large length.
class CollectivesSimSweepLarger : public ::testing::TestWithParam<int> {};

TEST_P(CollectivesSimSweepLarger, EveryCollectiveMatchesItsReference) {
  const int p = GetParam();
  testing::CheckPlan plan;
  plan.lengths = testing::standardLengths(p, 0);
  std::mutex mutex;
  std::vector<std::string> failures;
  launch(starCluster(p, /*contentionFree=*/false), [&](Transport& transport) {
    std::vector<std::string> mine = testing::runCollectiveChecks(transport, plan);
    std::lock_guard<std::mutex> lock(mutex);
    failures.insert(failures.end(), mine.begin(), mine.end());
  });
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, CollectivesSimSweepLarger, ::testing::Values(16, 33));

// ---------------------------------------------------------------------------
// Simulated time of one all-reduce: the latest rank's finish time.
double simulatedAllreduce(const LaunchOptions& options, AllreduceAlgorithm algorithm, size_t n) {
  std::vector<double> finish(static_cast<size_t>(options.workers), 0.0);
  // Payload-free ranks share one never-touched buffer (no pages used).
  std::unique_ptr<float[]> shared(options.payloadFree ? new float[n] : nullptr);
  launch(options, [&](Transport& transport) {
    std::vector<float> data(transport.carriesPayload() ? n : 0);
    std::span<float> view =
        transport.carriesPayload() ? std::span<float>(data) : std::span<float>(shared.get(), n);
    const double start = transport.now();
    allreduce(transport, view, AllreduceOptions{algorithm, ReduceOp::kSum, 100});
    finish[transport.rank()] = transport.now() - start;
  });
  return *std::max_element(finish.begin(), finish.end());
}

struct TimingCase {
  AllreduceAlgorithm algorithm;
  int p;
  size_t n;
};

class CollectivesAlphaBeta : public ::testing::TestWithParam<TimingCase> {};

TEST_P(CollectivesAlphaBeta, SimulatedTimeMatchesTheModelWithinFivePercent) {
  const TimingCase c = GetParam();
  LaunchOptions options = starCluster(c.p);
  options.payloadFree = c.n > 100000;  // timing does not depend on the bytes
  const double simulated = simulatedAllreduce(options, c.algorithm, c.n);
  const double model = allreduceCost(c.algorithm, c.p, c.n, CostParams{kAlpha, kBeta});
  EXPECT_NEAR(simulated / model, 1.0, 0.05)
      << toString(c.algorithm) << " p=" << c.p << " n=" << c.n << ": simulated " << simulated
      << " s, model " << model << " s";
}

INSTANTIATE_TEST_SUITE_P(
    StarCM02, CollectivesAlphaBeta,
    ::testing::Values(TimingCase{AllreduceAlgorithm::kRing, 8, 256},
                      TimingCase{AllreduceAlgorithm::kRing, 8, 4 << 20},
                      TimingCase{AllreduceAlgorithm::kRing, 5, 4 << 20},
                      TimingCase{AllreduceAlgorithm::kRecursiveDoubling, 8, 256},
                      TimingCase{AllreduceAlgorithm::kRecursiveDoubling, 8, 4 << 20},
                      TimingCase{AllreduceAlgorithm::kRecursiveDoubling, 6, 4 << 20},
                      TimingCase{AllreduceAlgorithm::kTree, 8, 256},
                      TimingCase{AllreduceAlgorithm::kTree, 8, 4 << 20},
                      TimingCase{AllreduceAlgorithm::kTree, 7, 4 << 20},
                      TimingCase{AllreduceAlgorithm::kRabenseifner, 8, 4 << 20},
                      TimingCase{AllreduceAlgorithm::kRabenseifner, 6, 4 << 20}),
    [](const ::testing::TestParamInfo<TimingCase>& info) {
      std::string name = toString(info.param.algorithm) + "_p" + std::to_string(info.param.p) +
                         "_n" + std::to_string(info.param.n);
      return name;
    });

// ---------------------------------------------------------------------------
struct RunRecord {
  double seconds = 0;
  std::vector<uint64_t> bytesSent, messagesSent;
  std::vector<std::vector<float>> results;
};

RunRecord recordedRun(AllreduceAlgorithm algorithm, int p, size_t n) {
  RunRecord record;
  record.bytesSent.resize(p);
  record.messagesSent.resize(p);
  record.results.resize(p);
  std::vector<double> finish(static_cast<size_t>(p));
  launch(starCluster(p, /*contentionFree=*/false), [&](Transport& transport) {
    std::vector<float> data = testing::inputOf(transport.rank(), n, 7);
    allreduce(transport, data, AllreduceOptions{algorithm, ReduceOp::kAverage, 100});
    finish[transport.rank()] = transport.now();
    record.bytesSent[transport.rank()] = transport.traffic().totalBytesSent();
    record.messagesSent[transport.rank()] = transport.traffic().totalMessagesSent();
    record.results[transport.rank()] = std::move(data);
  });
  record.seconds = *std::max_element(finish.begin(), finish.end());
  return record;
}

TEST(CollectivesSim, TwoRunsGiveIdenticalTimesBytesAndResults) {
  for (AllreduceAlgorithm algorithm :
       {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree}) {
    const RunRecord first = recordedRun(algorithm, 7, 30011);
    const RunRecord second = recordedRun(algorithm, 7, 30011);
    // Runs in one process share SimGrid's clock and each measures from its own
    // start (SimWorld::startTime), so the subtraction may round differently in
    // the last bit: identical up to 1e-12 relative.
    EXPECT_NEAR(first.seconds, second.seconds, 1e-12 * first.seconds) << toString(algorithm);
    EXPECT_GT(first.seconds, 0) << toString(algorithm);
    EXPECT_EQ(first.bytesSent, second.bytesSent) << toString(algorithm);
    EXPECT_EQ(first.messagesSent, second.messagesSent) << toString(algorithm);
    for (int r = 0; r < 7; ++r) {
      ASSERT_EQ(first.results[r].size(), second.results[r].size());
      EXPECT_EQ(0, std::memcmp(first.results[r].data(), second.results[r].data(),
                               first.results[r].size() * sizeof(float)))
          << toString(algorithm) << " rank " << r;
      // Every rank holds bit-identical results.
      EXPECT_EQ(0, std::memcmp(first.results[r].data(), first.results[0].data(),
                               first.results[r].size() * sizeof(float)))
          << toString(algorithm) << " rank " << r << " differs from rank 0";
    }
  }
}

// Ring all-reduce: rank r sends every block but its own in the reduce-
// scatter and every block but block r+1 in the all-gather, to its right
// neighbour only, with no header bytes: 4·(2N - |b_r| - |b_{r+1}|) bytes in
// 2(p-1) messages, i.e. 2(p-1)/p·N·4 when p divides N.
TEST(CollectivesSim, RingAllreduceSendsExactlyTheChunkBytes) {
  for (size_t n : {size_t{8000}, size_t{8003}, size_t{5}}) {
    const int p = 8;
    const RunRecord record = recordedRun(AllreduceAlgorithm::kRing, p, n);
    for (int r = 0; r < p; ++r) {
      const uint64_t expected =
          4 * (2 * n - blockRange(n, p, r).count - blockRange(n, p, (r + 1) % p).count);
      EXPECT_EQ(record.bytesSent[r], expected) << "n=" << n << " rank " << r;
      EXPECT_EQ(record.messagesSent[r], uint64_t{2 * (p - 1)}) << "n=" << n << " rank " << r;
      if (n % p == 0) {
        EXPECT_EQ(record.bytesSent[r], 2 * (p - 1) * n / p * 4);
      }
    }
  }
}

// Payload-free mode: many ranks and a large vector, no per-rank buffers;
// traffic and time are those of the real run.
TEST(CollectivesSim, PayloadFreeRingOnManyRanksCountsTheSameBytes) {
  const int p = 64;
  const size_t n = size_t{1} << 22;  // 16 MiB per rank, never allocated
  LaunchOptions options = starCluster(p);
  options.payloadFree = true;
  std::vector<uint64_t> sent(p);
  std::vector<double> finish(p);
  std::unique_ptr<float[]> shared(new float[n]);  // shared by all ranks, never touched
  launch(options, [&](Transport& transport) {
    ASSERT_FALSE(transport.carriesPayload());
    std::span<float> view(shared.get(), n);
    allreduce(transport, view, AllreduceOptions{AllreduceAlgorithm::kRing, ReduceOp::kSum, 100});
    sent[transport.rank()] = transport.traffic().totalBytesSent();
    finish[transport.rank()] = transport.now();
  });
  for (int r = 0; r < p; ++r) EXPECT_EQ(sent[r], 2 * (p - 1) * n / p * 4) << "rank " << r;
  const double model = allreduceCost(AllreduceAlgorithm::kRing, p, n, CostParams{kAlpha, kBeta});
  EXPECT_NEAR(*std::max_element(finish.begin(), finish.end()) / model, 1.0, 0.05);
}

// Hierarchical all-reduce on a two-level cluster: binomial steps on the
// intra-node links, a ring over the node leaders across both levels.
TEST(CollectivesSim, HierarchicalOnTwoLevelsMatchesTheModel) {
  for (size_t n : {size_t{256}, size_t{4} << 20}) {
    LaunchOptions options;
    options.cluster = "sim:4x4:100Gbps,2us:10Gbps,25us";
    options.workers = 16;
    options.payloadFree = n > 100000;
    options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
    const double simulated = simulatedAllreduce(options, AllreduceAlgorithm::kHierarchical, n);
    CostParams c;
    c.alpha = 2e-6 + 25e-6;
    c.beta = kBeta;
    c.ranksPerNode = 4;
    c.intraAlpha = 2e-6;
    c.intraBeta = 1.0 / 12.5e9;
    const double model = allreduceCost(AllreduceAlgorithm::kHierarchical, 16, n, c);
    EXPECT_NEAR(simulated / model, 1.0, 0.05)
        << "n=" << n << ": simulated " << simulated << " s, model " << model << " s";
  }
}

// Where bandwidth × latency is large, SimGrid's CM02 bounds each flow by the
// TCP window, TCP-gamma / (2α) (4 MiB over 2 ms: 2.1 GB/s of a 50 GB/s
// link); the cost model applies the same bound (CostParams::tcpGamma) and
// is far off without it.
TEST(CollectivesSim, TheTcpWindowBoundsHighBandwidthDelayLinksAsInTheModel) {
  for (AllreduceAlgorithm algorithm : {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRabenseifner,
                                       AllreduceAlgorithm::kRecursiveDoubling}) {
    const size_t n = size_t{4} << 20;
    LaunchOptions options;
    options.cluster = "sim:8x400Gbps,1ms";
    options.workers = 8;
    options.payloadFree = true;
    options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
    const double simulated = simulatedAllreduce(options, algorithm, n);
    CostParams c{1e-3, 1.0 / 50e9};
    const double unbounded = allreduceCost(algorithm, 8, n, c);
    c.tcpGamma = 4194304;
    const double model = allreduceCost(algorithm, 8, n, c);
    EXPECT_NEAR(simulated / model, 1.0, 0.01)
        << toString(algorithm) << ": simulated " << simulated << " s, model " << model << " s";
    EXPECT_GT(simulated / unbounded, 1.3) << toString(algorithm) << ": the bound does not bind";
  }
}

// Payload-free runs move the same messages at the same simulated times as
// runs with data, for every collective algorithm.
TEST(CollectivesSim, PayloadFreeRunsSendTheSameBytesAtTheSameTimes) {
  const int p = 7;
  const size_t n = 1001;
  auto run = [&](bool payloadFree) {
    LaunchOptions options = starCluster(p);
    options.payloadFree = payloadFree;
    std::vector<uint64_t> record(2 * p);
    std::vector<double> finish(p);
    std::unique_ptr<float[]> shared(new float[n * p]);
    launch(options, [&](Transport& transport) {
      std::vector<float> own(n * p, 1.0f);
      std::span<float> data =
          payloadFree ? std::span<float>(shared.get(), n * p) : std::span<float>(own);
      for (AllreduceAlgorithm a :
           {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
            AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree,
            AllreduceAlgorithm::kHierarchical}) {
        allreduce(transport, data.first(n), AllreduceOptions{a, ReduceOp::kAverage, 100});
      }
      for (ReduceScatterAlgorithm a :
           {ReduceScatterAlgorithm::kRing, ReduceScatterAlgorithm::kRecursiveHalving}) {
        reduceScatter(transport, data.first(n), ReduceScatterOptions{a, ReduceOp::kSum, 120});
      }
      for (AllgatherAlgorithm a :
           {AllgatherAlgorithm::kRing, AllgatherAlgorithm::kRecursiveDoubling}) {
        allgather(transport, std::span<const float>(data.subspan(n * transport.rank(), n)), data,
                  AllgatherOptions{a, 140});
      }
      for (BroadcastAlgorithm a :
           {BroadcastAlgorithm::kBinomial, BroadcastAlgorithm::kScatterAllgather}) {
        broadcast(transport, data.first(n), BroadcastOptions{a, 3, 180});
      }
      // Variable-size packets: receivers learn every sender's size.
      std::vector<std::byte> packet(static_cast<size_t>(10 * transport.rank() + 3));
      std::vector<ByteBuffer> packets = allgatherBytes(transport, packet, CollectiveOptions{200});
      for (int r = 0; r < p; ++r) EXPECT_EQ(packets[r].size(), static_cast<size_t>(10 * r + 3));
      record[transport.rank()] = transport.traffic().totalBytesSent();
      record[p + transport.rank()] = transport.traffic().totalBytesReceived();
      finish[transport.rank()] = transport.now();
    });
    return std::make_pair(record, finish);
  };
  const auto [withData, withDataTimes] = run(false);
  const auto [sizesOnly, sizesOnlyTimes] = run(true);
  EXPECT_EQ(withData, sizesOnly);
  for (int r = 0; r < p; ++r) {
    EXPECT_NEAR(withDataTimes[r], sizesOnlyTimes[r], 1e-12 * withDataTimes[r]) << "rank " << r;
  }
}

// ---------------------------------------------------------------------------
// Bad inputs: lengths that differ across ranks end in a ProtocolError that
// names the collective, never in a hang or an out-of-bounds write.
template <typename Body>
std::string failureOf(int p, Body body) {
  LaunchOptions options = starCluster(p);
  options.timeoutSeconds = 5;
  try {
    launch(options, body);
  } catch (const ProtocolError& error) {
    return error.what();
  } catch (const std::exception& error) {
    return std::string("wrong error type: ") + error.what();
  }
  return "no error";
}

TEST(CollectivesSim, DifferentLengthsAcrossRanksAreAProtocolError) {
  for (AllreduceAlgorithm algorithm :
       {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
        AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree,
        AllreduceAlgorithm::kHierarchical}) {
    for (int p : {2, 5, 8}) {
      const std::string message = failureOf(p, [&](Transport& transport) {
        std::vector<float> data(transport.rank() == p - 1 ? 11 : 10, 1.0f);
        allreduce(transport, data, AllreduceOptions{algorithm, ReduceOp::kSum, 100});
      });
      EXPECT_NE(message.find("all-reduce"), std::string::npos)
          << toString(algorithm) << " p=" << p << ": " << message;
      EXPECT_NE(message.find("bytes"), std::string::npos) << message;
    }
  }
  const std::string gather = failureOf(4, [](Transport& transport) {
    std::vector<size_t> counts = {3, 3, 3, 3};
    if (transport.rank() == 2) counts[1] = 4;  // rank 2 disagrees about rank 1
    std::vector<float> mine(counts[transport.rank()], 1.0f);
    std::vector<float> out(std::accumulate(counts.begin(), counts.end(), size_t{0}));
    allgatherv(transport, mine, out, counts);
  });
  EXPECT_NE(gather.find("all-gather"), std::string::npos) << gather;
  const std::string bcast = failureOf(4, [](Transport& transport) {
    std::vector<float> data(transport.rank() == 0 ? 100 : 99);
    broadcast(transport, std::span<float>(data));
  });
  EXPECT_NE(bcast.find("broadcast"), std::string::npos) << bcast;
}

TEST(CollectivesSim, NativeAllreduceIsRefusedOnTheSimulator) {
  EXPECT_THROW(launch(starCluster(2),
                      [](Transport& transport) {
                        std::vector<float> data(4);
                        allreduce(transport, data, AllreduceOptions{AllreduceAlgorithm::kNative});
                      }),
               Unsupported);
}

}  // namespace
}  // namespace tetrad
