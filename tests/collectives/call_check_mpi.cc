// Collective call checks and stall reports on the Open MPI engine. Run under
// mpirun (tests/collectives/CMakeLists.txt):
//   call_check_mpi --sweep      the correctness sweep of collective_checks.h
//                               with checks on: no false positive;
//   call_check_mpi --mismatch length|algorithm
//                               the last rank passes another length (or
//                               rank 1 another algorithm) to an all-reduce:
//                               every rank must catch the same "collective
//                               call mismatch" error naming both calls; the
//                               ranks then confirm it to each other (checks
//                               off) and rank 0 prints the error;
//   call_check_mpi --stall      rank 1 sleeps past the timeout before it
//                               sends: rank 0 prints the stall line (peer,
//                               tag, label) and then fails with the timeout.
// Exits 0 when every check passed (--stall: fails, as the test expects).
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

#include "collective_checks.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/transport/diagnostics.h"

namespace {

using namespace tetrad;

int runSweep() {
  LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = 60;
  std::vector<std::string> failures;
  launch(options, [&](Transport& transport) {
    transport.diagnostics().setCheckCollectives(true);
    testing::CheckPlan plan;
    plan.lengths = testing::standardLengths(transport.size(), 20011);
    plan.barrierDelay = 0.02;
    failures = testing::runCollectiveChecks(transport, plan);
  });
  for (const std::string& failure : failures) std::fprintf(stderr, "FAIL %s\n", failure.c_str());
  return failures.empty() ? 0 : 1;
}

int runMismatch(std::string_view kind) {
  LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = 20;
  int failures = 0;
  launch(options, [&](Transport& transport) {
    const int p = transport.size();
    std::vector<float> data(kind == "length" && transport.rank() == p - 1 ? 11 : 10, 1.0f);
    AllreduceOptions call;
    if (kind == "algorithm" && transport.rank() == 1) call.algorithm = AllreduceAlgorithm::kTree;
    const std::string expected =
        kind == "length"
            ? fmt::format(
                  "collective call mismatch: rank 0 calls all-reduce #0 (ring, 10 x "
                  "fp32, sum, tag 100) but rank {} calls all-reduce #0 (ring, 11 x "
                  "fp32, sum, tag 100)",
                  p - 1)
            : std::string(
                  "collective call mismatch: rank 0 calls all-reduce #0 (ring, 10 x "
                  "fp32, sum, tag 100) but rank 1 calls all-reduce #0 (tree, 10 x fp32, "
                  "sum, tag 100)");
    transport.diagnostics().setCheckCollectives(true);
    std::string caught;
    try {
      allreduce(transport, data, call);
    } catch (const ProtocolError& e) {
      caught = e.what();
    }
    transport.diagnostics().setCheckCollectives(false);
    float ok = caught.find(expected) != std::string::npos ? 1.0f : 0.0f;
    if (ok == 0.0f) {
      std::fprintf(stderr, "FAIL rank %d: expected '%s', caught '%s'\n", transport.rank(),
                   expected.c_str(), caught.c_str());
    }
    std::span<float> flag(&ok, 1);
    allreduce(transport, flag, {AllreduceAlgorithm::kRing, ReduceOp::kSum, 200});
    if (transport.rank() == 0) {
      std::printf("every rank: %s (%g of %d ranks)\n", caught.c_str(), ok, p);
      if (ok != float(p)) failures = 1;
    }
  });
  return failures;
}

int runStall() {
  LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = 4;
  launch(options, [&](Transport& transport) {
    transport.diagnostics().setStallWarnSeconds(1);
    const ActivityLabel label(transport, 7, 1, "bucket 3 (fc1.weight)");
    std::vector<float> value(1, 0.0f);
    if (transport.rank() == 1) {
      std::this_thread::sleep_for(std::chrono::seconds(8));  // past the timeout
      transport.sendValues<float>(0, 7, value);
    } else if (transport.rank() == 0) {
      transport.recvValues<float>(1, 7, value);
    }
  });
  std::fprintf(stderr, "FAIL the stalled receive did not time out\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string_view mode = argc >= 2 ? argv[1] : "";
    if (mode == "--sweep") return runSweep();
    if (mode == "--mismatch" && argc >= 3) return runMismatch(argv[2]);
    if (mode == "--stall") return runStall();
    std::fprintf(stderr, "usage: call_check_mpi --sweep | --mismatch length|algorithm | --stall\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    std::fflush(stderr);
    abortAllRanks(1);
    return 1;
  }
}
