// `tetrad train`: one data-parallel training run (src/tetrad/train/trainer.h).
//
//   tetrad train --model cnn --workers 4 --cluster sim:10Gbps,25us
//   mpirun -np 4 tetrad train --cluster mpi ...
//
// The flags fill a TrainConfig; every check lives in resolveConfig() so that
// tests and experiment files get the same rules. See docs/training.md.
#include <cstdio>
#include <memory>

#include "command.h"
#include "tetrad/arch/registry.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/compute_spec.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/trainer.h"
#include "train_options.h"

namespace tetrad::app {

namespace {

// The taxonomy point: when, who with whom, what, how.
void addMethodOptions(CLI::App* cmd, train::TrainConfig& c) {
  // The lists come from the registries' tables (docs/sync.md has the rules).
  cmd->add_option("--sync", c.sync, "When workers exchange: " + knownSyncPolicies())
      ->capture_default_str();
  cmd->add_option("--arch", c.arch,
                  "Who exchanges with whom: " + knownArchitectures() +
                      " (allreduce ALGO: auto, ring, rd, rabenseifner, tree, hierarchical, native; "
                      "ps[:K][:colocated]; gossip TOPO: ring, torus:RxC, exp, exp:one-peer, "
                      "complete, random:D, file:PATH)")
      ->capture_default_str();
  cmd->add_option("--compress", c.compress,
                  "What goes on the wire: " + knownCompressors() + "; ',ef' adds error feedback")
      ->capture_default_str();
  cmd->add_option("--sched", c.sched, "Communication scheduling: " + knownSchedulers())
      ->capture_default_str();
  cmd->add_option("--gossip", c.gossip,
                  "Gossip: dpsgd (full models), or choco:GAMMA (CHOCO-SGD: compressed "
                  "differences, consensus step GAMMA in (0, 1])")
      ->capture_default_str();
  cmd->add_option("--ps-partition", c.psPartition,
                  "Parameter server: largest partition of the model (large tensors are split)")
      ->capture_default_str();
  cmd->add_option("--ps-pull-compress", c.psPullCompress,
                  "Parameter server: compressor of the servers' replies")
      ->capture_default_str();
}

void addWorkloadOptions(CLI::App* cmd, train::TrainConfig& c) {
  std::string models;
  for (const std::string& name : train::knownModels())
    models += (models.empty() ? "" : ", ") + name;
  cmd->add_option("--model", c.model, "Model: " + models + ", or a TorchScript FILE.pt")
      ->capture_default_str();
  cmd->add_option("--data", c.data,
                  "fashion-mnist, mnist, cifar10, synthetic, or npy:DIR (your own train_x.npy, "
                  "train_y.npy, test_x.npy, test_y.npy in DIR; docs/training.md)")
      ->capture_default_str();
  cmd->add_option("--data-dir", c.dataDir,
                  "Folder of the dataset files (default: /usr/share/datasets/<data>)");
  cmd->add_option("--train-samples", c.trainSamples,
                  "Use only the first N training samples (0: all)");
  cmd->add_option("--test-samples", c.testSamples, "Use only the first N test samples (0: all)");
  cmd->add_option("--partition", c.partition, "Data split across ranks: iid or dirichlet:ALPHA")
      ->capture_default_str();
}

// The cluster, its network model and the compute model.
void addClusterOptions(CLI::App* cmd, train::TrainConfig& c) {
  cmd->add_option("--workers", c.workers,
                  "Number of workers (default 4 on a simulated cluster unless the spec fixes the "
                  "ranks; under MPI the ranks of mpirun minus dedicated servers)");
  cmd->add_option("--cluster", c.cluster, "mpi, or sim:SPEC (e.g. sim:10Gbps,25us)")
      ->capture_default_str();
  cmd->add_option("--sim-cfg", c.simConfig,
                  "Extra SimGrid configuration item (repeatable), e.g. network/model:CM02");
  cmd->add_option("--net-model", c.netModel,
                  "Network model of a simulated cluster: " + model::netModelHelp())
      ->check(kNetModelName);
  cmd->add_option_function<std::string>(
         "--net-profile", [&c](const std::string& file) { c.netModel = "profile:" + file; },
         "The same as --net-model profile:FILE")
      ->excludes("--net-model");
  cmd->add_option("--timeout", c.timeout, "Seconds any wait may last before it is an error")
      ->capture_default_str();
  cmd->add_option("--compute", c.compute, "Simulated compute time: " + model::computeModelHelp())
      ->capture_default_str();
  cmd->add_option("--codec-cost", c.codecCost,
                  "Compressor encode/decode on the clock: auto (measured with --compute "
                  "measured, else profile:host-cpu), measured, none, profile:NAME|FILE (shipped: "
                  "host-cpu, v100)")
      ->capture_default_str();
  cmd->add_option("--straggler", c.stragglers,
                  "RANK:FACTOR: that rank computes FACTOR times slower (repeatable)");
  cmd->add_option("--compute-noise", c.computeNoise,
                  "SIGMA of a mean-one lognormal factor on every compute time (0: none)");
  cmd->add_option("--threads", c.threads, "LibTorch threads per rank under MPI (1 on sim)")
      ->capture_default_str();
  cmd->add_option("--sim-threads", c.simThreads,
                  "Threads computing the simulated ranks' passes at once with --compute fixed: "
                  "or flops: (0: every core; measured compute runs one rank at a time); results "
                  "do not depend on it")
      ->capture_default_str();
}

void addOptimizerOptions(CLI::App* cmd, train::TrainConfig& c) {
  cmd->add_option("--epochs", c.epochs, "Epochs")->capture_default_str();
  cmd->add_option("--batch-size", c.batchSize, "Batch size per rank")->capture_default_str();
  cmd->add_option("--lr", c.lr, "Learning rate (per-rank batch; see --lr-scaling)")
      ->capture_default_str();
  cmd->add_option("--momentum", c.momentum, "SGD momentum")->capture_default_str();
  cmd->add_option("--weight-decay", c.weightDecay, "L2 weight decay")->capture_default_str();
  cmd->add_option("--warmup", c.warmup, "Linear learning-rate warm-up, in epochs")
      ->capture_default_str();
  cmd->add_option("--lr-schedule", c.lrSchedule, "constant, cosine or step:E1,E2[:GAMMA]")
      ->capture_default_str();
  cmd->add_option("--lr-scaling", c.lrScaling, "none, or linear (lr x workers)")
      ->capture_default_str();
  cmd->add_option("--bucket-size", c.bucketSize,
                  "Gradient bucket size: tensors fused up to this size travel as one message and "
                  "are compressed as one vector (auto: 25MiB, as PyTorch DDP; 0: one bucket per "
                  "tensor, the layer-wise ablation)")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of every random stream")->capture_default_str();
}

// What is recorded and how the run is kept: evaluation, logs, timeline, the
// non-finite guard, stalls, checkpoints.
void addRunOptions(CLI::App* cmd, train::TrainConfig& c) {
  cmd->add_option("--eval-every", c.evalEvery,
                  "Evaluate on the test set every N iterations (0: at epoch ends)");
  cmd->add_option("--log-every", c.logEvery,
                  "Write a metrics line every N iterations (0: ~20 per epoch)");
  cmd->add_option("--max-iters", c.maxIters, "Stop after N iterations (0: no cap)");
  cmd->add_option("--target-accuracy", c.targetAccuracy,
                  "Test accuracy whose time-to-reach is reported (0: none)");
  cmd->add_option("--out", c.out, "Run folder (default runs/<name>)");
  cmd->add_option("--name", c.name, "Run name (default model-data-Nw-algo-compress-time)");
  cmd->add_flag("--quiet", c.quiet, "No progress line");
  cmd->add_option("--timeline", c.timeline,
                  "Write timeline.json (Chrome trace: per-layer compute, each bucket's "
                  "communication, waits): on, off, or auto (on except with --timing-only)")
      ->capture_default_str();
  cmd->add_option("--timeline-iterations", c.timelineIterations,
                  "Iterations kept at each end of the timeline (bounded size)")
      ->capture_default_str();
  cmd->add_flag("--timing-only", c.timingOnly,
                "Simulate time and traffic only: no model or data, payload-free messages of the "
                "method's sizes, compute from --compute (measured: one probe)");
  cmd->add_option("--engine", c.engine,
                  "simgrid: every message through SimGrid; analytic (with --timing-only): "
                  "collectives in closed form on a contention-free network, for thousands of "
                  "workers (needs --net-model cm02 or profile:FILE; docs/training.md)")
      ->capture_default_str();
  cmd->add_option("--on-nonfinite", c.onNonFinite,
                  "A NaN or Inf in the loss or a gradient: stop (every rank, status diverged) "
                  "or skip (that step, on every rank); off: no check (no per-iteration agreement)")
      ->capture_default_str();
  cmd->add_flag("--check-collectives", c.checkCollectives,
                "Every collective call first agrees on a fingerprint across ranks "
                "(docs/reliability.md)");
  cmd->add_option("--stall-warn", c.stallWarn,
                  "Seconds a wait may last before a stall line names what it waits for "
                  "(default: a tenth of --timeout; 0: off)");
  cmd->add_option("--checkpoint-every", c.checkpointEvery,
                  "Write a checkpoint every N iterations and at epoch ends (0: only when "
                  "stopped by SIGINT/SIGTERM)")
      ->capture_default_str();
  cmd->add_option("--resume", c.resume,
                  "Continue the run in folder RUNDIR from its newest complete checkpoint (give "
                  "the same flags as the run that wrote it; another --workers resizes it)");
  cmd->add_option("--resize-batch", c.resizeBatch,
                  "What a resume on another worker count keeps: global (the global batch, "
                  "split over the workers) or per-worker (--batch-size per worker; the global "
                  "batch and a linearly scaled lr follow the workers)")
      ->capture_default_str();
  cmd->add_option("--membership", c.membership,
                  "Simulated churn: leave[:K]@ITER, join[:K]@ITER, ...@SECONDSs, comma-separated "
                  "(docs/reliability.md)");
  cmd->add_flag("--churn-emergency-checkpoint", c.churnEmergencyCheckpoint,
                "A --membership leave resumes from the survivors' checkpoint of the iteration it "
                "happens (methods that all-reduce every step; docs/reliability.md)");
  cmd->add_option("--churn-restart", c.churnRestart,
                  "Simulated seconds each --membership change costs (detection and restart)")
      ->capture_default_str();
}

}  // namespace

void addTrainOptions(CLI::App* cmd, train::TrainConfig& c) {
  addMethodOptions(cmd, c);
  addWorkloadOptions(cmd, c);
  addClusterOptions(cmd, c);
  addOptimizerOptions(cmd, c);
  addRunOptions(cmd, c);
}

namespace {

void addTrainCommand(CommandGroups& groups) {
  auto config = std::make_shared<train::TrainConfig>();
  CLI::App* cmd = groups.root->add_subcommand(
      "train", "Train a model data-parallel on a simulated (SimGrid) or real (MPI) cluster");
  addTrainOptions(cmd, *config);
  cmd->callback([config] {
    // --data npy:DIR is --data npy --data-dir DIR.
    if (config->data.rfind("npy:", 0) == 0) {
      TETRAD_CHECK(config->dataDir.empty(), InvalidArgument,
                   "--data {} names the folder already: drop --data-dir {}", config->data,
                   config->dataDir);
      config->dataDir = config->data.substr(4);
      config->data = "npy";
      TETRAD_CHECK(!config->dataDir.empty(), InvalidArgument,
                   "--data npy:DIR needs a folder after 'npy:'");
    }
    train::TrainSummary summary = train::runTraining(*config);
    if (isOutputProcess()) {
      std::fputs(summary.toText().c_str(), stdout);
      std::fflush(stdout);
    }
  });
}

CommandRegistration registration(addTrainCommand);

}  // namespace
}  // namespace tetrad::app
