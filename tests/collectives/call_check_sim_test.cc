// Collective call checks (collectives/call_check.h) and stall reports
// (transport/diagnostics.h) on the SimGrid engine: no false positive over
// the whole correctness sweep with checks on; a length, algorithm or
// operation mismatch is the same error on every rank, naming both ranks and
// both calls; a stalled peer is reported with peer, tag and label before the
// timeout error.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "collective_checks.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/collectives/call_check.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/transport/diagnostics.h"

namespace tetrad {
namespace {

class CallCheckSweep : public ::testing::TestWithParam<int> {};

TEST_P(CallCheckSweep, EveryCollectivePassesWithChecksOn) {
  const int p = GetParam();
  testing::CheckPlan plan;
  plan.lengths = testing::standardLengths(p, 20011);
  std::mutex mutex;
  std::vector<std::string> failures;
  launch(testing::starCluster(p), [&](Transport& transport) {
    transport.diagnostics().setCheckCollectives(true);
    std::vector<std::string> mine = testing::runCollectiveChecks(transport, plan);
    // The checks ran: the sequence of the default all-reduce tag advanced.
    if (p > 1 && transport.diagnostics().nextSequence(100) == 0) {
      mine.push_back("no checked all-reduce on tag 100");
    }
    std::lock_guard lock(mutex);
    failures.insert(failures.end(), mine.begin(), mine.end());
  });
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, CallCheckSweep, ::testing::Values(1, 2, 3, 5, 8));

// Runs `body` on p ranks with checks on; returns each rank's error message
// (the part after "rank R: "), "" for a rank that did not throw.
std::vector<std::string> errorsOf(int p, const std::function<void(Transport&)>& body) {
  std::vector<std::string> errors(static_cast<size_t>(p));
  LaunchOptions options = testing::starCluster(p);
  options.timeoutSeconds = 5;
  launch(options, [&](Transport& transport) {
    transport.diagnostics().setCheckCollectives(true);
    try {
      body(transport);
    } catch (const ProtocolError& e) {
      const std::string text = e.what();
      const size_t at = text.find("collective call mismatch");
      errors[size_t(transport.rank())] = at == std::string::npos ? text : text.substr(at);
    }
  });
  return errors;
}

void expectSameOnEveryRank(const std::vector<std::string>& errors, const std::string& expected) {
  for (size_t r = 0; r < errors.size(); ++r) {
    EXPECT_EQ(errors[r], expected) << "rank " << r;
  }
}

TEST(CallCheck, LengthMismatchIsNamedOnEveryRank) {
  const auto errors = errorsOf(3, [](Transport& transport) {
    std::vector<float> warmup(4, 1.0f);
    allreduce(transport, warmup);  // #0 matches
    std::vector<float> data(transport.rank() == 2 ? 11 : 10, 1.0f);
    allreduce(transport, data);
  });
  expectSameOnEveryRank(errors,
                        "collective call mismatch: rank 0 calls all-reduce #1 (ring, 10 x fp32, "
                        "sum, tag 100) but rank 2 calls all-reduce #1 (ring, 11 x fp32, sum, tag "
                        "100)");
}

TEST(CallCheck, AlgorithmMismatchIsNamedOnEveryRank) {
  const auto errors = errorsOf(4, [](Transport& transport) {
    std::vector<float> data(10, 1.0f);
    AllreduceOptions options;
    if (transport.rank() == 1) options.algorithm = AllreduceAlgorithm::kTree;
    allreduce(transport, data, options);
  });
  expectSameOnEveryRank(errors,
                        "collective call mismatch: rank 0 calls all-reduce #0 (ring, 10 x fp32, "
                        "sum, tag 100) but rank 1 calls all-reduce #0 (tree, 10 x fp32, sum, tag "
                        "100)");
}

TEST(CallCheck, OperationMismatchIsNamedOnEveryRank) {
  const auto errors = errorsOf(2, [](Transport& transport) {
    std::vector<float> data(10, 1.0f);
    if (transport.rank() == 0) {
      allreduce(transport, data, {AllreduceAlgorithm::kRing, ReduceOp::kSum, 400});
    } else {
      broadcast(transport, std::span<float>(data));  // default tag 400
    }
  });
  expectSameOnEveryRank(errors,
                        "collective call mismatch: rank 0 calls all-reduce #0 (ring, 10 x fp32, "
                        "sum, tag 400) but rank 1 calls broadcast #0 (binomial, 40 x bytes, root "
                        "0, tag 400)");
}

TEST(CallCheck, ChecksOffLetsTheAlgorithmFindTheLengthItself) {
  // Without checks the ring finds the different length on its own (a
  // ProtocolError about message sizes, not a call mismatch).
  std::vector<std::string> errors(2);
  LaunchOptions options = testing::starCluster(2);
  options.timeoutSeconds = 5;
  EXPECT_THROW(launch(options,
                      [&](Transport& transport) {
                        std::vector<float> data(transport.rank() == 1 ? 11 : 10, 1.0f);
                        allreduce(transport, data);
                      }),
               ProtocolError);
}

// ---------------------------------------------------------------------------
// Stall reports.

TEST(StallReport, NamesPeerTagAndLabelThenWaitsOn) {
  LaunchOptions options = testing::starCluster(2);
  options.timeoutSeconds = 10;
  ::testing::internal::CaptureStderr();
  launch(options, [&](Transport& transport) {
    transport.diagnostics().setStallWarnSeconds(1);
    std::vector<float> data(10, 1.0f);
    if (transport.rank() == 1) transport.sleepFor(3);
    allreduce(transport, data);
    EXPECT_EQ(data[0], 2.0f);
  });
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tetrad: rank 0: stalled 1 s in "), std::string::npos) << err;
  EXPECT_NE(err.find("rank 1 (tag 100"), std::string::npos) << err;
  EXPECT_NE(err.find("during all-reduce (ring, 10 x fp32, sum, tag 100)"), std::string::npos)
      << err;
  EXPECT_NE(err.find("timeout after 10 s"), std::string::npos) << err;
  EXPECT_EQ(err.find("rank 1: stalled"), std::string::npos) << err;
}

TEST(StallReport, ComesBeforeTheTimeoutError) {
  LaunchOptions options = testing::starCluster(2);
  options.timeoutSeconds = 4;
  ::testing::internal::CaptureStderr();
  std::string error;
  try {
    launch(options, [&](Transport& transport) {
      transport.diagnostics().setStallWarnSeconds(1);
      const ActivityLabel label(transport, 7, 1, "bucket 3 (fc1.weight)");
      std::vector<float> value(1, 0.0f);
      if (transport.rank() == 1) {
        transport.sleepFor(20);  // past the timeout
        transport.sendValues<float>(0, 7, value);
      } else {
        transport.recvValues<float>(1, 7, value);
      }
    });
  } catch (const TimeoutError& e) {
    error = e.what();
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tetrad: rank 0: stalled 1 s in recv from rank 1 (tag 7) during bucket 3 "
                     "(fc1.weight); still waiting, timeout after 4 s"),
            std::string::npos)
      << err;
  EXPECT_NE(error.find("recv from rank 1 (tag 7) timed out after 4 s"), std::string::npos) << error;
}

TEST(StallReport, ZeroTurnsReportsOff) {
  LaunchOptions options = testing::starCluster(2);
  options.timeoutSeconds = 10;
  ::testing::internal::CaptureStderr();
  launch(options, [&](Transport& transport) {
    transport.diagnostics().setStallWarnSeconds(0);
    std::vector<float> data(10, 1.0f);
    if (transport.rank() == 1) transport.sleepFor(3);
    allreduce(transport, data);
  });
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("stalled"), std::string::npos);
}

}  // namespace
}  // namespace tetrad
