// AD-PSGD's exchange on the Open MPI engine, where the passive task is a real
// thread beside the worker: pure gossip (adpsgd_helpers.h) on a ring and on
// the complete graph, with rank 1 a straggler. Every rank must terminate;
// then an all-reduce of the final vectors checks that the sum of the models
// is kept (every rank knows every initial vector) and that the consensus
// distance contracted. Run under mpirun -np N; exits 0 when every check on
// this rank passed, 1 otherwise.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "adpsgd_helpers.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

constexpr size_t kCount = 1001;

void check(Transport& world, const std::string& spec, std::vector<std::string>& failures) {
  const int p = world.size();
  const testing::PureGossipResult result =
      testing::runPureAdpsgd(world, spec, kCount, 30, world.rank() == 1 ? 0.004 : 0.001);
  std::vector<std::vector<float>> initial;
  for (int r = 0; r < p; ++r) initial.push_back(testing::initialVector(r, kCount));
  const std::vector<double> mean = testing::meanOf(initial);
  std::vector<float> sum = result.x;
  allreduce(world, sum, AllreduceOptions{AllreduceAlgorithm::kRing, ReduceOp::kSum, 2000});
  for (size_t k = 0; k < kCount; ++k) {
    if (std::fabs(sum[k] / float(p) - mean[k]) > 1e-4) {
      failures.push_back(
          fmt::format("{}: mean [{}] {} after, {} before", spec, k, sum[k] / p, mean[k]));
      return;
    }
  }
  // Consensus: (1/p) Σ_i ‖x_i − x̄‖², the sum of the local terms.
  std::vector<float> distance(2, 0.0f);
  for (size_t k = 0; k < kCount; ++k) {
    distance[0] += float((result.x[k] - mean[k]) * (result.x[k] - mean[k]));
  }
  distance[1] = float(result.steps);
  allreduce(world, distance, AllreduceOptions{AllreduceAlgorithm::kRing, ReduceOp::kSum, 2100});
  const double before = testing::consensusDistance(initial);
  const double after = distance[0] / p;
  if (!(after < 0.05 * before)) {
    failures.push_back(fmt::format("{}: consensus {} -> {}", spec, before, after));
  }
  if (world.rank() == 0 && result.stats.updatesApplied != int64_t(distance[1])) {
    failures.push_back(
        fmt::format("{}: counter {} but {} steps", spec, result.stats.updatesApplied, distance[1]));
  }
  std::printf("rank %d: %s: %lld steps, consensus %.4g -> %.4g\n", world.rank(), spec.c_str(),
              static_cast<long long>(result.steps), before, after);
}

}  // namespace
}  // namespace tetrad

int main() {
  try {
    tetrad::LaunchOptions options;
    options.cluster = "mpi";
    options.timeoutSeconds = 60;
    std::vector<std::string> failures;
    int rank = 0;
    tetrad::launch(options, [&](tetrad::Transport& world) {
      rank = world.rank();
      for (const std::string spec : {"ring", "complete"}) tetrad::check(world, spec, failures);
    });
    for (const std::string& failure : failures) {
      std::fprintf(stderr, "rank %d: FAIL %s\n", rank, failure.c_str());
    }
    if (failures.empty()) std::printf("rank %d: all AD-PSGD checks passed\n", rank);
    return failures.empty() ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    std::fflush(stderr);
    tetrad::abortAllRanks(1);
    return 1;
  }
}
