// Scale of the payload-free mode: a ring all-reduce (reduce-scatter then
// all-gather, 2(p-1) steps of n/p bytes) on many ranks, whose simulated time
// must match the α–β formula 2(p-1)(α + n/(pβ)) on the star.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "sim_test_util.h"

namespace tetrad {
namespace {

using testing::simOptions;

// Runs the ring and returns rank 0's finish time. Every rank uses the same
// chunk-sized buffer: in payload-free mode nothing is read or written.
double ringAllreduce(int ranks, size_t bytes) {
  LaunchOptions options = simOptions("sim:10Gbps,25us", ranks);
  options.payloadFree = true;
  options.timeoutSeconds = 1e6;
  size_t chunk = bytes / ranks;
  std::vector<std::byte> scratch(chunk);
  double finish = -1;
  runSimulation(options, [&](Transport& t) {
    int right = (t.rank() + 1) % ranks, left = (t.rank() + ranks - 1) % ranks;
    for (int step = 0; step < 2 * (ranks - 1); ++step) {
      RequestPtr recv = t.irecv(left, 0, scratch);
      RequestPtr send = t.isend(right, 0, scratch);
      send->wait();
      recv->wait();
    }
    EXPECT_EQ(t.traffic().totalBytesSent(), 2u * (ranks - 1) * chunk);
    if (t.rank() == 0) finish = t.now();
  });
  return finish;
}

double ringFormula(int p, size_t bytes) {
  return 2.0 * (p - 1) * (25e-6 + static_cast<double>(bytes / p) / (10e9 / 8));
}

TEST(SimScale, PayloadFreeRingMatchesAlphaBeta) {
  const int p = 64;
  const size_t bytes = 100'000'000;
  EXPECT_NEAR(ringAllreduce(p, bytes), ringFormula(p, bytes), ringFormula(p, bytes) * 1e-6);
}

// The 512-rank, 100 MB case of the design (run by hand:
// --gtest_also_run_disabled_tests --gtest_filter=*Ring512*).
TEST(SimScale, DISABLED_Ring512) {
  const int p = 512;
  const size_t bytes = 100'000'000;
  auto start = std::chrono::steady_clock::now();
  double simulated = ringAllreduce(p, bytes);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "ring all-reduce, %d ranks, %zu bytes: simulated %.6f s (formula %.6f s), wall %.2f s\n", p,
      bytes, simulated, ringFormula(p, bytes), wall);
  EXPECT_NEAR(simulated, ringFormula(p, bytes), ringFormula(p, bytes) * 1e-6);
}

}  // namespace
}  // namespace tetrad
