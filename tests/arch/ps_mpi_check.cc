// The parameter server under mpirun (see tests/arch/CMakeLists.txt):
//   ps_mpi_check colocated   -np 4: ps:colocated, 4 workers
//   ps_mpi_check dedicated   -np 4: ps, 3 workers + 1 server rank
//   ps_mpi_check stall       -np 4: ps, the server (rank 3) never answers; every
//                            worker must fail within the timeout naming it
//   ps_mpi_check kill        -np 4: ps, the server (rank 3) dies (SIGKILL)
//                            instead of serving; the job must end non-zero
// bsp averages must equal the exact mean; an asp run must stop at its limit.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "arch_test_util.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"

using namespace tetrad;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "colocated";
  const bool colocated = mode == "colocated";
  LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = mode == "stall" || mode == "kill" ? 3 : 60;
  try {
    launch(options, [&](Transport& world) {
      const int workers = colocated ? world.size() : world.size() - 1;
      const std::string arch = colocated ? "ps:colocated" : "ps";
      {
        testing::ExchangeSetup setup(world, workers, "bsp", {5000, 300}, "none", 4096);
        ExchangePtr exchange = makeExchange(arch, setup.context);
        if (exchange->isServerRank()) {
          if (mode == "stall") {
            sleep(30);  // alive but silent
            return;
          }
          if (mode == "kill") raise(SIGKILL);  // dies instead of serving
          exchange->serve(nullptr);
        } else {
          exchange->start({});
          for (size_t b = 0; b < 2; ++b) {
            std::vector<float> values(b == 0 ? 5000 : 300);
            for (size_t i = 0; i < values.size(); ++i)
              values[i] = testing::valueOf(world.rank(), i);
            exchange->average(ExchangeStream::kGradients, b, values);
            for (size_t i = 0; i < values.size(); ++i) {
              double mean = 0;
              for (int r = 0; r < workers; ++r) mean += testing::valueOf(r, i);
              TETRAD_CHECK(values[i] == float(mean / workers), Error,
                           "rank {}: element {} of bucket {} is {}, expected {}", world.rank(), i,
                           b, values[i], mean / workers);
            }
          }
          exchange->finish();
        }
      }
      // Fresh tags: the first exchange's servers may still be finishing.
      testing::ExchangeSetup setup(world, workers, "asp", {1000}, "none", 1024, 5000);
      setup.context.updateLimit = 20;
      ExchangePtr exchange = makeExchange(arch, setup.context);
      if (exchange->isServerRank()) return exchange->serve(nullptr);
      std::vector<float> params(1000, 0.0f), change(1000, 1.0f);
      exchange->start(params);
      PullResult pull;
      while (!(pull = exchange->pushPull(change, params)).stop) {
      }
      exchange->finish();
      TETRAD_CHECK(pull.updatesApplied >= 20, Error, "rank {}: stopped after {} updates",
                   world.rank(), pull.updatesApplied);
      std::printf("rank %d: ps %s checks passed (%lld updates applied)\n", world.rank(),
                  mode.c_str(), static_cast<long long>(pull.updatesApplied));
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ps_mpi_check: %s\n", e.what());
    return 1;
  }
  return 0;
}
