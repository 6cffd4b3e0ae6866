// Under mpirun -np N: decentralized training on real processes ends with the
// parameters the simulator gives for the same seed. Every rank trains with
// D-PSGD (or CHOCO-SGD with Top-k 10 %, γ = 0.5) on a ring under MPI, then
// replays the same run on a simulated cluster of N workers inside its own
// process and compares its own final parameters with those of its rank
// there (gossip and LibTorch's one-thread compute are deterministic).
// Exit status 0 only when every rank matches.
//
// usage: gossip_mpi dpsgd|choco
#include <cstdio>
#include <string>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "train_test_util.h"

int main(int argc, char** argv) {
  using namespace tetrad;
  using namespace tetrad::train;
  try {
    at::set_num_threads(1);
    const std::string mode = argc > 1 ? argv[1] : "dpsgd";
    TETRAD_CHECK(mode == "dpsgd" || mode == "choco", InvalidArgument,
                 "usage: gossip_mpi dpsgd|choco (got '{}')", mode);
    DataSplits data = testing::smallSynthetic(512, 64);
    TrainConfig config = testing::equivalenceConfig("mlp", 8, 6);
    config.sync = "bsp";
    config.arch = "gossip:ring";
    if (mode == "choco") {
      config.gossip = "choco:0.5";
      config.compress = "topk:0.1";
    }
    std::vector<float> real;
    int workers = 0, rank = 0;
    LaunchOptions options;
    options.cluster = "mpi";
    options.timeoutSeconds = 60;
    TrainConfig mpi = config;
    mpi.cluster = "mpi";
    launch(options, [&](Transport& t) {
      workers = t.size();
      rank = t.rank();
      real = testing::trainRank(mpi, data, t);
    });
    TETRAD_CHECK(workers >= 2, Error, "run this test with mpirun -np 2 or more (got {})", workers);
    std::vector<float> simulated;
    LaunchOptions sim;
    sim.cluster = config.cluster;
    sim.workers = workers;
    launch(sim, [&](Transport& t) {
      std::vector<float> mine = testing::trainRank(config, data, t);
      if (t.rank() == rank) simulated = std::move(mine);
    });
    const double difference = testing::maxRelativeDifference(real, simulated);
    std::printf("rank %d of %d (%s): %zu parameters, max relative difference MPI vs SimGrid %.3g\n",
                rank, workers, mode.c_str(), real.size(), difference);
    if (!(difference < 1e-6)) {
      std::printf("rank %d: FAIL: parameters under MPI differ from the simulated run\n", rank);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gossip_mpi: error: %s\n", e.what());
    abortAllRanks(1);
    return 1;
  }
}
