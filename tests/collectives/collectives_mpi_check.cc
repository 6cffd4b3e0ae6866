// Collectives on the Open MPI engine. Run under mpirun -np N (tests/
// collectives/CMakeLists.txt registers N = 1..9):
//   collectives_mpi_check [--large N]   the correctness sweep of
//                                       collective_checks.h, native included;
//   collectives_mpi_check --wire fp16|bf16
//                                       the wire-precision sweep of
//                                       wire_checks.h at that precision;
//   collectives_mpi_check --mismatch ALGORITHM
//                                       rank 0 passes a different length to
//                                       the all-reduce: the job must fail
//                                       quickly with a ProtocolError naming
//                                       the all-reduce and both sizes (a
//                                       failed rank ends the MPI job, see
//                                       launch/launcher.h), never hang.
// Exits 0 when every check on this rank passed, 1 otherwise (mpirun then
// fails the test).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "collective_checks.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "wire_checks.h"

namespace {

// `wire` empty: the standard sweep; otherwise the wire sweep at that precision.
int runSweep(size_t large, std::string_view wire) {
  tetrad::LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = 60;
  std::vector<std::string> failures;
  int rank = 0;
  tetrad::launch(options, [&](tetrad::Transport& transport) {
    rank = transport.rank();
    if (!wire.empty()) {
      tetrad::testing::WirePlan plan;
      plan.lengths = tetrad::testing::standardLengths(transport.size(), 20011);
      plan.wires = {tetrad::parseWirePrecision(wire)};
      failures = tetrad::testing::runWireChecks(transport, plan);
      return;
    }
    tetrad::testing::CheckPlan plan;
    plan.lengths = tetrad::testing::standardLengths(transport.size(), large);
    plan.includeNative = true;
    plan.barrierDelay = 0.02;
    failures = tetrad::testing::runCollectiveChecks(transport, plan);
  });
  for (const std::string& failure : failures) std::fprintf(stderr, "FAIL %s\n", failure.c_str());
  if (failures.empty()) std::printf("rank %d: all collective checks passed\n", rank);
  return failures.empty() ? 0 : 1;
}

int runMismatch(tetrad::AllreduceAlgorithm algorithm) {
  tetrad::LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = 3;
  tetrad::launch(options, [&](tetrad::Transport& transport) {
    std::vector<float> data(transport.rank() == 0 ? 10 : 11, 1.0f);
    tetrad::allreduce(transport, data, tetrad::AllreduceOptions{algorithm});
  });
  std::fprintf(stderr, "FAIL different lengths across ranks were not detected\n");
  return 0;  // the test expects a failure: succeeding fails it
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc >= 3 && std::string_view(argv[1]) == "--mismatch") {
      return runMismatch(tetrad::parseAllreduceAlgorithm(argv[2]));
    }
    size_t large = 0;
    if (argc >= 3 && std::string_view(argv[1]) == "--large")
      large = std::strtoul(argv[2], nullptr, 10);
    if (argc >= 3 && std::string_view(argv[1]) == "--wire") return runSweep(0, argv[2]);
    return runSweep(large, "");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    std::fflush(stderr);
    tetrad::abortAllRanks(1);
    return 1;
  }
}
