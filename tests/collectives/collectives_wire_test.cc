// All-reduce at a 16-bit wire precision on the SimGrid engine: the
// correctness sweep of wire_checks.h (every algorithm, world sizes 1..9),
// traffic (every message halves), α–β timing with 2-byte elements,
// payload-free mode and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>

#include "collective_checks.h"
#include "reference.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/collectives/partition.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "wire_checks.h"

namespace tetrad {
namespace {

constexpr double kAlpha = 25e-6;  // "sim:...10Gbps,25us"
constexpr double kBeta = 1.0 / 1.25e9;

constexpr AllreduceAlgorithm kAlgorithms[] = {
    AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
    AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree,
    AllreduceAlgorithm::kHierarchical};

using testing::starCluster;

// World sizes 1..9 on 3 nodes x 3 ranks (hierarchical has real nodes).
class WireSweep : public ::testing::TestWithParam<int> {};

TEST_P(WireSweep, EveryAlgorithmMatchesItsRoundedReferenceOnEveryRank) {
  const int p = GetParam();
  LaunchOptions options;
  options.cluster = "sim:3x3:100Gbps,1us:10Gbps,25us";
  options.workers = p;
  options.timeoutSeconds = 60;
  testing::WirePlan plan;
  plan.lengths = testing::standardLengths(p, 20011);
  std::mutex mutex;
  std::vector<std::string> failures;
  launch(options, [&](Transport& transport) {
    std::vector<std::string> mine = testing::runWireChecks(transport, plan);
    std::lock_guard<std::mutex> lock(mutex);
    failures.insert(failures.end(), mine.begin(), mine.end());
  });
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, WireSweep, ::testing::Range(1, 10));

struct Traffic {
  std::vector<uint64_t> bytes, messages;
  std::vector<double> finish;
};

// One all-reduce of `n` floats per rank; payload-free ranks share a buffer
// that is never touched.
Traffic run(const LaunchOptions& options, AllreduceAlgorithm algorithm, size_t n,
            WirePrecision wire) {
  const size_t p = static_cast<size_t>(options.workers);
  Traffic traffic{std::vector<uint64_t>(p), std::vector<uint64_t>(p), std::vector<double>(p)};
  std::unique_ptr<float[]> shared(options.payloadFree ? new float[n] : nullptr);
  launch(options, [&](Transport& transport) {
    std::vector<float> own = transport.carriesPayload() ? testing::inputOf(transport.rank(), n, 3)
                                                        : std::vector<float>();
    std::span<float> data =
        transport.carriesPayload() ? std::span<float>(own) : std::span<float>(shared.get(), n);
    const double start = transport.now();
    allreduce(transport, data, AllreduceOptions{algorithm, ReduceOp::kAverage, 100, wire});
    traffic.finish[transport.rank()] = transport.now() - start;
    traffic.bytes[transport.rank()] = transport.traffic().totalBytesSent();
    traffic.messages[transport.rank()] = transport.traffic().totalMessagesSent();
  });
  return traffic;
}

// Ring at a 16-bit wire: 2·(2N − |b_r| − |b_{r+1}|) bytes per rank in
// 2(p−1) messages, i.e. 2(p−1)/p·N·2 when p divides N: exactly half of fp32.
TEST(WireTraffic, RingSendsExactlyHalfTheBytesOfFloat32) {
  const int p = 8;
  for (size_t n : {size_t{8000}, size_t{8003}, size_t{5}}) {
    const Traffic fp32 = run(starCluster(p), AllreduceAlgorithm::kRing, n, WirePrecision::kFloat32);
    for (WirePrecision wire : {WirePrecision::kFloat16, WirePrecision::kBFloat16}) {
      const Traffic half = run(starCluster(p), AllreduceAlgorithm::kRing, n, wire);
      for (int r = 0; r < p; ++r) {
        const uint64_t expected =
            2 * (2 * n - blockRange(n, p, r).count - blockRange(n, p, (r + 1) % p).count);
        EXPECT_EQ(half.bytes[r], expected) << toString(wire) << " n=" << n << " rank " << r;
        EXPECT_EQ(2 * half.bytes[r], fp32.bytes[r]) << toString(wire) << " n=" << n;
        EXPECT_EQ(half.messages[r], uint64_t{2 * (p - 1)}) << toString(wire) << " n=" << n;
        if (n % p == 0) {
          EXPECT_EQ(half.bytes[r], 2 * (p - 1) * n / p * 2);
        }
      }
    }
  }
}

// Every algorithm: the same messages as float32, each of half the bytes.
TEST(WireTraffic, EveryAlgorithmHalvesEveryRanksBytes) {
  const int p = 7;
  const size_t n = 3001;
  for (AllreduceAlgorithm algorithm : kAlgorithms) {
    const Traffic fp32 = run(starCluster(p), algorithm, n, WirePrecision::kFloat32);
    const Traffic fp16 = run(starCluster(p), algorithm, n, WirePrecision::kFloat16);
    for (int r = 0; r < p; ++r) {
      EXPECT_GT(fp32.bytes[r], 0u) << toString(algorithm) << " rank " << r;
      EXPECT_EQ(2 * fp16.bytes[r], fp32.bytes[r]) << toString(algorithm) << " rank " << r;
      EXPECT_EQ(fp16.messages[r], fp32.messages[r]) << toString(algorithm) << " rank " << r;
    }
  }
}

// Payload-free runs move the same bytes at the same times as runs with data.
TEST(WireTraffic, PayloadFreeRunsMatchRunsWithData) {
  const int p = 7;
  const size_t n = 1001;
  for (AllreduceAlgorithm algorithm : kAlgorithms) {
    LaunchOptions options = starCluster(p);
    const Traffic withData = run(options, algorithm, n, WirePrecision::kBFloat16);
    options.payloadFree = true;
    const Traffic sizesOnly = run(options, algorithm, n, WirePrecision::kBFloat16);
    EXPECT_EQ(withData.bytes, sizesOnly.bytes) << toString(algorithm);
    for (int r = 0; r < p; ++r) {
      EXPECT_NEAR(withData.finish[r], sizesOnly.finish[r], 1e-12 * withData.finish[r])
          << toString(algorithm) << " rank " << r;
    }
  }
}

TEST(WireTraffic, PayloadFreeRingOnManyRanksSendsHalfTheBytes) {
  const int p = 64;
  const size_t n = size_t{1} << 22;
  LaunchOptions options = starCluster(p);
  options.payloadFree = true;
  const Traffic t = run(options, AllreduceAlgorithm::kRing, n, WirePrecision::kFloat16);
  for (int r = 0; r < p; ++r) EXPECT_EQ(t.bytes[r], 2 * (p - 1) * n / p * 2) << "rank " << r;
  const double model = allreduceCost(AllreduceAlgorithm::kRing, p, n, CostParams{kAlpha, kBeta},
                                     WirePrecision::kFloat16);
  EXPECT_NEAR(*std::max_element(t.finish.begin(), t.finish.end()) / model, 1.0, 0.05);
}

struct TimingCase {
  AllreduceAlgorithm algorithm;
  int p;
  WirePrecision wire;
};

class WireAlphaBeta : public ::testing::TestWithParam<TimingCase> {};

// 4M floats (payload-free): the simulated time follows the model with
// 2-byte elements, and the β-dominated time nearly halves against float32.
TEST_P(WireAlphaBeta, SimulatedTimeMatchesTheModelWithTwoByteElements) {
  const TimingCase c = GetParam();
  const size_t n = size_t{4} << 20;
  LaunchOptions options = starCluster(c.p);
  options.payloadFree = true;
  const Traffic t = run(options, c.algorithm, n, c.wire);
  const double simulated = *std::max_element(t.finish.begin(), t.finish.end());
  const CostParams params{kAlpha, kBeta};
  const double model = allreduceCost(c.algorithm, c.p, n, params, c.wire);
  EXPECT_NEAR(simulated / model, 1.0, 0.05)
      << toString(c.algorithm) << " p=" << c.p << ": simulated " << simulated << " s, model "
      << model << " s";
  const double fp32 = allreduceCost(c.algorithm, c.p, n, params);
  EXPECT_LT(simulated / fp32, 0.52) << toString(c.algorithm) << " p=" << c.p;
}

INSTANTIATE_TEST_SUITE_P(
    StarCM02, WireAlphaBeta,
    ::testing::Values(TimingCase{AllreduceAlgorithm::kRing, 8, WirePrecision::kFloat16},
                      TimingCase{AllreduceAlgorithm::kRing, 5, WirePrecision::kBFloat16},
                      TimingCase{AllreduceAlgorithm::kRecursiveDoubling, 6,
                                 WirePrecision::kFloat16},
                      TimingCase{AllreduceAlgorithm::kRabenseifner, 6, WirePrecision::kFloat16},
                      TimingCase{AllreduceAlgorithm::kTree, 7, WirePrecision::kBFloat16}),
    [](const ::testing::TestParamInfo<TimingCase>& info) {
      return toString(info.param.algorithm) + "_p" + std::to_string(info.param.p) + "_" +
             toString(info.param.wire);
    });

TEST(WireRefusals, NativeAllreduceRefusesA16BitWire) {
  try {
    launch(starCluster(2), [](Transport& transport) {
      std::vector<float> data(4);
      allreduce(transport, data,
                AllreduceOptions{AllreduceAlgorithm::kNative, ReduceOp::kSum, 100,
                                 WirePrecision::kFloat16});
    });
    ADD_FAILURE() << "no error";
  } catch (const Unsupported& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("float32 only"), std::string::npos) << message;
    EXPECT_NE(message.find("fp16"), std::string::npos) << message;
  }
}

TEST(WireRefusals, DifferentLengthsAcrossRanksAreAProtocolError) {
  for (AllreduceAlgorithm algorithm : kAlgorithms) {
    LaunchOptions options = starCluster(5);
    options.timeoutSeconds = 5;
    std::string message = "no error";
    try {
      launch(options, [&](Transport& transport) {
        std::vector<float> data(transport.rank() == 4 ? 11 : 10, 1.0f);
        allreduce(transport, data,
                  AllreduceOptions{algorithm, ReduceOp::kSum, 100, WirePrecision::kFloat16});
      });
    } catch (const ProtocolError& error) {
      message = error.what();
    }
    EXPECT_NE(message.find("all-reduce"), std::string::npos) << toString(algorithm) << message;
    EXPECT_NE(message.find("fp16 wire"), std::string::npos) << toString(algorithm) << message;
  }
}

// The ring's average fuses the division into the owner's last addition
// (addIntoThenDivide): every float, specials included, gets the bits of
// addInto followed by divideBy.
TEST(ReduceOps, FusedDivideHasTheBitsOfAddThenDivide) {
  std::vector<float> a, b;
  const float specials[] = {0.0f,
                            -0.0f,
                            1e-45f,
                            -1e-38f,
                            3.4e38f,
                            -3.4e38f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1.0f,
                            -2.5f,
                            7.0f / 3};
  for (float x : specials) {
    for (float y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  uint32_t state = 12345;
  for (int i = 0; i < 100000; ++i) {  // random bit patterns
    state = state * 1664525u + 1013904223u;
    a.push_back(std::bit_cast<float>(state));
    state = state * 1664525u + 1013904223u;
    b.push_back(std::bit_cast<float>(state));
  }
  for (const float divisor : {2.0f, 3.0f, 7.0f, 32.0f, 1000.0f}) {
    std::vector<float> separate = a, fused = a;
    addInto(separate, b);
    divideBy(separate, divisor);
    addIntoThenDivide(fused, b, divisor);
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(fused[i]), std::bit_cast<uint32_t>(separate[i]))
          << "element " << i << ", divisor " << divisor;
    }
  }
}

TEST(WirePrecisionNames, ParseAndPrint) {
  for (WirePrecision wire :
       {WirePrecision::kFloat32, WirePrecision::kFloat16, WirePrecision::kBFloat16}) {
    EXPECT_EQ(parseWirePrecision(toString(wire)), wire);
  }
  EXPECT_EQ(parseWirePrecision("half"), WirePrecision::kFloat16);
  EXPECT_EQ(parseWirePrecision("bfloat16"), WirePrecision::kBFloat16);
  EXPECT_EQ(wireElementBytes(WirePrecision::kFloat32), 4u);
  EXPECT_EQ(wireElementBytes(WirePrecision::kBFloat16), 2u);
  EXPECT_THROW(parseWirePrecision("fp8"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad
