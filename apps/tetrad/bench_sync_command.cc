// `tetrad bench sync`: the sync and arch dimensions against their baselines,
// measured in the same run on a simulated cluster (synthetic data, a fixed
// compute time, real payloads):
//   arch table   time and bytes per iteration of a parameter server
//                (default ps:colocated) against ring all-reduce, BSP, per
//                model × workers × bandwidth;
//   local table  bytes and time per epoch of local:H against bsp;
//   gossip table communication time per iteration of D-PSGD on ring and exp
//                against ring all-reduce (mlp), and the real seconds the
//                simulation took.
// Ratios, not absolute times, are the result (docs/BENCHMARKS.md).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

#include "command.h"
#include "libtorch_commands.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/train/trainer.h"

namespace tetrad::app {
namespace {

struct SyncBenchOptions {
  std::vector<std::string> models = {"mlp", "cnn"};
  std::vector<int> workers = {8, 32};
  std::vector<std::string> bandwidths = {"1Gbps", "10Gbps"};
  std::string latency = "25us";
  std::string ps = "ps:colocated";
  std::string psPartition = "auto";  // auto: model bytes / (8 × workers)
  std::vector<int> periods = {1, 4, 16};
  std::vector<int> gossipWorkers = {8, 32, 128};
  std::vector<std::string> topologies = {"ring", "exp"};
  std::vector<std::string> tables = {"arch", "local", "gossip"};
  std::string compute = "fixed:20ms";
  int64_t iterations = 8;
  std::vector<std::string> simConfig;
};

train::TrainSummary runOne(const SyncBenchOptions& o, const std::string& model, int workers,
                           const std::string& bandwidth, const std::string& sync,
                           const std::string& arch, int64_t iterations) {
  train::TrainConfig c;
  c.model = model;
  c.data = "synthetic";
  c.trainSamples = size_t(workers) * 64 * size_t(iterations);
  c.testSamples = 64;
  c.workers = workers;
  c.cluster = "sim:" + bandwidth + "," + o.latency;
  c.simConfig = o.simConfig;
  c.compute = o.compute;
  c.sync = sync;
  c.arch = arch;
  // Shards balanced to within one partition: small partitions keep the
  // busiest link close to the average (8 partitions per shard on average).
  if (o.psPartition == "auto") {
    const int64_t parameters = train::countParameters(model, 1, 28, 28, 10);
    c.psPartition = std::to_string(std::max<int64_t>(4, parameters * 4 / (8 * workers))) + "B";
  } else {
    c.psPartition = o.psPartition;
  }
  c.maxIters = iterations;
  c.quiet = true;
  c.out = "runs/bench-sync/" + model + "-" + std::to_string(workers) + "w-" + bandwidth + "-" +
          sync + "-" + arch;
  for (char& ch : c.out) ch = ch == ':' ? '_' : ch;
  return train::runTraining(c);
}

double meanBytes(const train::TrainSummary& s) {
  double sum = 0;
  int count = 0;
  for (size_t i = 0; i < s.bytesSent.size(); ++i) {
    if (s.roles[i] == "server") continue;
    sum += double(s.bytesSent[i]);
    ++count;
  }
  return count > 0 ? sum / count : 0;
}

void archTable(const SyncBenchOptions& o) {
  std::printf("# arch: bsp, %s vs allreduce:ring; compute %s; %lld iterations; sim latency %s\n",
              o.ps.c_str(), o.compute.c_str(), static_cast<long long>(o.iterations),
              o.latency.c_str());
  std::printf("%-8s %7s %8s %14s %14s %9s %14s %14s %9s\n", "model", "workers", "bw", "ring s/iter",
              "ps s/iter", "time x", "ring B/iter", "ps B/iter", "bytes x");
  for (const std::string& model : o.models) {
    for (int workers : o.workers) {
      for (const std::string& bw : o.bandwidths) {
        const auto ring = runOne(o, model, workers, bw, "bsp", "allreduce:ring", o.iterations);
        const auto ps = runOne(o, model, workers, bw, "bsp", o.ps, o.iterations);
        const double ringTime = ring.trainTime / double(ring.iterations);
        const double psTime = ps.trainTime / double(ps.iterations);
        const double ringBytes = meanBytes(ring) / double(ring.iterations);
        const double psBytes = meanBytes(ps) / double(ps.iterations);
        std::printf("%-8s %7d %8s %14.6f %14.6f %9.3f %14.0f %14.0f %9.3f\n", model.c_str(),
                    workers, bw.c_str(), ringTime, psTime, psTime / ringTime, ringBytes, psBytes,
                    psBytes / ringBytes);
        std::fflush(stdout);
      }
    }
  }
}

void localTable(const SyncBenchOptions& o) {
  const std::string model = o.models.front();
  const int workers = o.workers.front();
  std::printf("\n# local: %s, %d workers, ring all-reduce, %lld iterations, compute %s\n",
              model.c_str(), workers, static_cast<long long>(o.iterations * 2), o.compute.c_str());
  std::printf("%-8s %-10s %14s %14s %9s %9s\n", "bw", "sync", "s/iter", "B/iter", "time x",
              "bytes x");
  for (const std::string& bw : o.bandwidths) {
    const auto bsp = runOne(o, model, workers, bw, "bsp", "allreduce:ring", o.iterations * 2);
    const double bspTime = bsp.trainTime / double(bsp.iterations);
    const double bspBytes = meanBytes(bsp) / double(bsp.iterations);
    std::printf("%-8s %-10s %14.6f %14.0f %9.3f %9.3f\n", bw.c_str(), "bsp", bspTime, bspBytes, 1.0,
                1.0);
    for (int h : o.periods) {
      const std::string sync = "local:" + std::to_string(h);
      const auto local = runOne(o, model, workers, bw, sync, "allreduce:ring", o.iterations * 2);
      const double time = local.trainTime / double(local.iterations);
      const double bytes = meanBytes(local) / double(local.iterations);
      std::printf("%-8s %-10s %14.6f %14.0f %9.3f %9.3f\n", bw.c_str(), sync.c_str(), time, bytes,
                  time / bspTime, bytes / bspBytes);
      std::fflush(stdout);
    }
  }
}

double meanComm(const train::TrainSummary& s) {
  double sum = 0;
  for (double t : s.commTime) sum += t;
  return s.commTime.empty() ? 0 : sum / double(s.commTime.size());
}

void gossipTable(const SyncBenchOptions& o) {
  std::printf("\n# gossip: mlp, bsp, D-PSGD vs allreduce:ring, %lld iterations, compute %s\n",
              static_cast<long long>(o.iterations), o.compute.c_str());
  std::printf("%7s %8s %-12s %14s %14s %9s %12s\n", "workers", "bw", "arch", "comm s/iter",
              "ring s/iter", "comm x", "real s");
  for (const std::string& bw : o.bandwidths) {
    for (int workers : o.gossipWorkers) {
      const auto ring = runOne(o, "mlp", workers, bw, "bsp", "allreduce:ring", o.iterations);
      const double ringComm = meanComm(ring) / double(ring.iterations);
      std::printf("%7d %8s %-12s %14.6f %14.6f %9.3f %12.2f\n", workers, bw.c_str(), "ring-allred",
                  ringComm, ringComm, 1.0, ring.wallTime);
      for (const std::string& topology : o.topologies) {
        const auto gossip =
            runOne(o, "mlp", workers, bw, "bsp", "gossip:" + topology, o.iterations);
        const double comm = meanComm(gossip) / double(gossip.iterations);
        std::printf("%7d %8s %-12s %14.6f %14.6f %9.3f %12.2f\n", workers, bw.c_str(),
                    ("gossip:" + topology).c_str(), comm, ringComm, comm / ringComm,
                    gossip.wallTime);
        std::fflush(stdout);
      }
    }
  }
}

void addBenchSyncCommand(CommandGroups& groups) {
  auto options = std::make_shared<SyncBenchOptions>();
  CLI::App* cmd = groups.bench->add_subcommand(kBenchSync.name, kBenchSync.description);
  SyncBenchOptions& o = *options;
  cmd->add_option("--models", o.models, "Models")->delimiter(',')->capture_default_str();
  cmd->add_option("--workers", o.workers, "Worker counts")->delimiter(',')->capture_default_str();
  cmd->add_option("--bandwidths", o.bandwidths, "Link bandwidths of the simulated star")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--latency", o.latency, "Link latency")->capture_default_str();
  cmd->add_option("--ps", o.ps, "Parameter-server architecture")->capture_default_str();
  cmd->add_option("--ps-partition", o.psPartition,
                  "Largest partition (auto: model bytes / (8 x workers))")
      ->capture_default_str();
  cmd->add_option("--periods", o.periods, "Local SGD periods H")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--compute", o.compute, "Compute-time model")->capture_default_str();
  cmd->add_option("--gossip-workers", o.gossipWorkers, "Worker counts of the gossip table")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--topologies", o.topologies, "Gossip topologies")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--tables", o.tables, "Tables to print: arch, local, gossip")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--iters", o.iterations, "Iterations per run")->capture_default_str();
  cmd->add_option("--sim-cfg", o.simConfig, "Extra SimGrid configuration item (repeatable)");
  cmd->callback([options] {
    TETRAD_CHECK(options->iterations >= 1 && !options->models.empty() &&
                     !options->workers.empty() && !options->bandwidths.empty(),
                 InvalidArgument, "bench sync: need iterations >= 1 and non-empty lists");
    const auto wants = [&](const char* table) {
      const auto& t = options->tables;
      return std::find(t.begin(), t.end(), table) != t.end();
    };
    if (wants("arch")) archTable(*options);
    if (wants("local")) localTable(*options);
    if (wants("gossip")) gossipTable(*options);
  });
}

CommandRegistration registration(addBenchSyncCommand);

}  // namespace
}  // namespace tetrad::app
