// `tetrad bench sched`: every scheduling policy against `none` on a
// simulated star, per model × workers × bandwidth — the simulated time of one
// iteration, the pipeline model's prediction beside it, and the speed-up over
// `none` both ways (train/bench/sched_bench.h says how each column is obtained).
#include <cstdio>
#include <memory>

#include "command.h"
#include "libtorch_commands.h"
#include "tetrad/core/error.h"
#include "tetrad/model/compute_spec.h"
#include "tetrad/sched/registry.h"
#include "tetrad/train/bench/sched_bench.h"

namespace tetrad::app {
namespace {

struct SchedBenchCommandOptions {
  std::vector<std::string> models = {"cnn", "resnet20"};
  std::vector<int> workers = {8, 32};
  std::vector<std::string> bandwidths = {"1Gbps", "10Gbps"};
  std::string latency = "25us";
  train::SchedBenchOptions bench;
};

void printTable(const SchedBenchCommandOptions& o, const std::string& model, int workers,
                const std::string& bandwidth) {
  train::SchedBenchOptions bench = o.bench;
  bench.config.model = model;
  bench.config.workers = workers;
  bench.config.cluster = "sim:" + bandwidth + "," + o.latency;
  const std::vector<train::SchedBenchRow> rows = train::benchSchedules(bench);
  std::printf("\n## %s, %d workers, %s, compute %s, batch %d, %lld iterations\n", model.c_str(),
              workers, bench.config.cluster.c_str(), bench.config.compute.c_str(),
              bench.config.batchSize, static_cast<long long>(bench.iterations));
  std::printf("%-16s %8s %12s %12s %9s %12s %12s\n", "policy", "messages", "sim ms/iter",
              "model ms/iter", "sim/model", "sim speed-up", "model speed-up");
  const train::SchedBenchRow* none = nullptr;
  for (const auto& row : rows) {
    if (!makeScheduler(row.policy)->overlapsBackward()) none = &row;  // after the backward
  }
  for (const auto& row : rows) {
    const double simUp = none ? none->simulatedSeconds / row.simulatedSeconds : 0;
    const double modelUp = none ? none->predictedSeconds / row.predictedSeconds : 0;
    std::printf("%-16s %8lld %12.2f %12.2f %9.3f %12.3f %12.3f\n", row.policy.c_str(),
                static_cast<long long>(row.messages), row.simulatedSeconds * 1e3,
                row.predictedSeconds * 1e3, row.simulatedSeconds / row.predictedSeconds, simUp,
                modelUp);
  }
  std::fflush(stdout);
}

void addBenchSchedCommand(CommandGroups& groups) {
  auto options = std::make_shared<SchedBenchCommandOptions>();
  SchedBenchCommandOptions& o = *options;
  train::TrainConfig& c = o.bench.config;
  c.batchSize = 32;
  c.compute = "flops:100";
  c.seed = 1;
  c.arch = "allreduce:ring";  // the pipeline formula's (sched_bench.cc)
  CLI::App* cmd = groups.bench->add_subcommand(kBenchSched.name, kBenchSched.description);
  cmd->add_option("--models", o.models, "Models")->delimiter(',')->capture_default_str();
  cmd->add_option("--workers", o.workers, "Worker counts")->delimiter(',')->capture_default_str();
  cmd->add_option("--bandwidths", o.bandwidths, "Link bandwidths of the simulated star")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--latency", o.latency, "End-to-end latency of the star")->capture_default_str();
  cmd->add_option("--policies", o.bench.policies, "Scheduling policies (none first: the baseline)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--compute", c.compute,
                  "Compute-time model of one forward + backward: fixed:DURATION, flops:GFLOPS, "
                  "throughput:S or device:NAME|FILE (devices: " +
                      model::joinedDeviceNames() + ")")
      ->capture_default_str();
  cmd->add_option("--batch-size", c.batchSize, "Batch size per worker")->capture_default_str();
  cmd->add_option("--iters", o.bench.iterations, "Iterations per run")->capture_default_str();
  cmd->callback([options] {
    const SchedBenchCommandOptions& o = *options;
    TETRAD_CHECK(!o.models.empty() && !o.workers.empty() && !o.bandwidths.empty(), InvalidArgument,
                 "bench sched: --models, --workers and --bandwidths need values");
    std::printf(
        "# tetrad bench sched: simulated (SimGrid CM02, no cross-traffic, real payloads, ring "
        "all-reduce) vs the pipeline model (sched/pipeline_cost.h); priority predicted with "
        "forward overlap\n");
    for (const std::string& model : o.models) {
      for (int workers : o.workers) {
        for (const std::string& bandwidth : o.bandwidths) {
          printTable(o, model, workers, bandwidth);
        }
      }
    }
  });
}

CommandRegistration registration(addBenchSchedCommand);

}  // namespace
}  // namespace tetrad::app
