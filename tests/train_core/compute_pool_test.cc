// ComputePool (train/compute/compute_pool.h): measured passes of simulated ranks run
// side by side while the ranks wait without moving their clocks, and the
// CPU clock that times them does not count waiting.
#include "tetrad/train/compute/compute_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "tetrad/launch/launcher.h"
#include "tetrad/train/compute/wall_clock.h"

namespace tetrad::train {
namespace {

// Each of 3 simulated ranks hands a job to a pool of 3 threads and waits
// with finishWhileYielding(). A job returns only once every rank's job has
// started (or after 10 s): were the ranks not yielding to one another, the
// first rank's job would run alone and time out.
TEST(ComputePool, MeasuredPassesOfSimulatedRanksRunSideBySide) {
  constexpr int kRanks = 3;
  ComputePool pool(kRanks);
  std::atomic<int> started{0};
  std::atomic<int> timedOut{0};
  std::atomic<int> clockMoved{0};
  LaunchOptions options;
  options.cluster = "sim:3x10Gbps,25us";
  launch(options, [&](Transport& t) {
    const double before = t.now();
    PendingPass pass = pool.submit([&] {
      started.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (started.load() < kRanks) {
        if (std::chrono::steady_clock::now() > deadline) {
          timedOut.fetch_add(1);
          return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    pass.finishWhileYielding(t);
    if (t.now() != before) clockMoved.fetch_add(1);
  });
  EXPECT_EQ(started.load(), kRanks);
  EXPECT_EQ(timedOut.load(), 0) << "a rank's job ran while the others were held up";
  EXPECT_EQ(clockMoved.load(), 0) << "waiting for a pass moved the simulated clock";
  EXPECT_EQ(pool.submitted(), kRanks);
}

TEST(ComputePool, FinishWhileYieldingRethrowsTheJobsException) {
  ComputePool pool(1);
  LaunchOptions options;
  options.cluster = "sim:1x10Gbps,25us";
  bool thrown = false;
  launch(options, [&](Transport& t) {
    PendingPass pass = pool.submit([] { throw std::runtime_error("pass failed"); });
    try {
      pass.finishWhileYielding(t);
    } catch (const std::runtime_error& e) {
      thrown = std::string(e.what()) == "pass failed";
    }
  });
  EXPECT_TRUE(thrown);
}

// A waiting rank sleeps until a job of the pool ends (any job: its rank then
// goes on at the next yield), not on a timer: the wait returns when the job
// ends, long before its timeout, and a wait with no job ending lasts its
// timeout.
TEST(ComputePool, WaitForEndWakesWhenAJobEnds) {
  ComputePool pool(1);
  const uint64_t seen = pool.jobsEnded();
  const auto start = std::chrono::steady_clock::now();
  PendingPass pass =
      pool.submit([] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
  pool.waitForEndAfter(seen, std::chrono::milliseconds(20000));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(pool.jobsEnded(), seen + 1);
  EXPECT_GE(waited, std::chrono::milliseconds(50));
  EXPECT_LT(waited, std::chrono::milliseconds(10000)) << "the wait missed the job's end";
  pass.finish();

  const auto idleStart = std::chrono::steady_clock::now();
  pool.waitForEndAfter(pool.jobsEnded(), std::chrono::milliseconds(30));
  EXPECT_GE(std::chrono::steady_clock::now() - idleStart, std::chrono::milliseconds(30));
}

// The lookahead: nothing before the first charge, then half the smallest of
// the last four.
TEST(PassLookahead, IsHalfTheSmallestOfTheLastFourCharges) {
  PassLookahead lookahead;
  EXPECT_EQ(lookahead.seconds(), 0.0);
  lookahead.add(0.10);
  EXPECT_DOUBLE_EQ(lookahead.seconds(), 0.05);
  lookahead.add(0.08);
  lookahead.add(0.12);
  lookahead.add(0.09);
  EXPECT_DOUBLE_EQ(lookahead.seconds(), 0.04);
  lookahead.add(0.11);  // 0.10 drops out; 0.08 is still among the last four
  EXPECT_DOUBLE_EQ(lookahead.seconds(), 0.04);
  lookahead.add(0.20);  // 0.08 drops out: 0.12, 0.09, 0.11, 0.20
  EXPECT_DOUBLE_EQ(lookahead.seconds(), 0.045);
  for (int i = 0; i < 3; ++i) lookahead.add(0.20);  // four times 0.20
  EXPECT_DOUBLE_EQ(lookahead.seconds(), 0.10);
}

// The clock that times passes on the pool: a thread that sleeps uses no CPU
// time, one that spins does.
TEST(ComputePool, ThreadCpuClockCountsRunningNotWaiting) {
  const double cpuStart = threadCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  const double slept = threadCpuSeconds() - cpuStart;
  EXPECT_LT(slept, 0.03);
  const double spinStart = threadCpuSeconds();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(60);
  volatile double sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1.0;
  const double spun = threadCpuSeconds() - spinStart;
  EXPECT_GT(spun, 0.02);  // the machine is shared: not the whole 60 ms
}

}  // namespace
}  // namespace tetrad::train
