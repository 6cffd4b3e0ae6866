// TrainConfig: everything one `tetrad train` run needs, as plain values
// (no LibTorch here, so the command-line code compiles fast).
//
// A run is one point (sync, arch, compress, sched) of the four dimensions
// (docs/architecture.md) plus a workload (model, data, optimizer) and a
// cluster.
// TrainConfig holds the flags as given; resolveConfig() parses every value
// once into a ResolvedConfig of typed values (LevelDB Options style) and
// checks every combination before anything runs (docs/sync.md): bad values
// throw InvalidArgument with one line naming the flag and the rule; a valid
// combination not implemented throws Unsupported naming the rule — never a
// silent fallback.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tetrad/arch/registry.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/model/iteration_theory.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/data/batch_plan.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/loop/codec_charge.h"
#include "tetrad/train/loop/lr_schedule.h"
#include "tetrad/train/loop/nonfinite_guard.h"
#include "tetrad/train/membership.h"

namespace tetrad::train {

struct TrainConfig {
  // The taxonomy point.
  std::string sync = "bsp";
  std::string arch = "allreduce:auto";
  std::string compress = "none";
  std::string sched = "none";
  // Workload.
  std::string model = "cnn";
  std::string data = "fashion-mnist";
  std::string dataDir;      // empty: the dataset's default folder
  size_t trainSamples = 0;  // 0: the whole training set
  size_t testSamples = 0;   // 0: the whole test set
  std::string partition = "iid";
  // Cluster.
  int workers = -1;  // -1: not given (4 on the default cluster)
  std::string cluster = "sim:10Gbps,25us";
  double timeout = 300;                // seconds of the engine's clock, every wait
  std::vector<std::string> simConfig;  // extra SimGrid --cfg items
  std::string netModel;  // --net-model: lv08, cm02, profile:FILE ("": cm02, or --sim-cfg's)
  // --engine: "simgrid" (every message through SimGrid) or "analytic"
  // (timing-only: collectives in closed form, transport/analytic_network.h).
  std::string engine = "simgrid";
  std::string compute = "measured";
  // Compressor work on the clock (loop/codec_charge.h): auto, measured,
  // none, profile:NAME|FILE.
  std::string codecCost = "auto";
  std::vector<std::string> stragglers;  // RANK:FACTOR
  double computeNoise = 0;
  int threads = 1;  // LibTorch threads per rank (MPI); 1 on sim
  // Simulated clusters: threads computing the ranks' passes at once
  // (compute_pool.h); 0: every usable core (--timing-only: one). With fixed:
  // and flops: compute it does not change any result; with measured, passes
  // on threads are timed by their thread's CPU clock (1: inline, wall).
  int simThreads = 0;
  // Optimisation.
  int epochs = 1;
  int batchSize = 64;  // per rank
  double lr = 0.05;
  double momentum = model::kDefaultMomentum;  // 0.9
  double weightDecay = 5e-4;
  double warmup = 0;  // epochs
  std::string lrSchedule = "constant";
  std::string lrScaling = "none";       // none | linear
  std::string bucketSize = "auto";      // auto | BYTES (0: one bucket per tensor)
  std::string psPartition = "4MiB";     // parameter server: largest partition
  std::string psPullCompress = "none";  // parameter server: compressor of replies
  std::string gossip = "dpsgd";         // gossip: dpsgd | choco:GAMMA
  uint64_t seed = 1;
  // Evaluation, logging, stopping.
  int64_t evalEvery = 0;      // iterations; 0: at epoch ends only
  int64_t logEvery = 0;       // iterations; 0: about 20 lines per epoch
  int64_t maxIters = 0;       // 0: no cap
  double targetAccuracy = 0;  // 0: none
  std::string out;            // run folder; empty: runs/<name>
  std::string name;           // run name; empty: derived from the config
  bool quiet = false;         // no progress lines
  bool announce = true;       // the opening "tetrad train: ..." line (benches: off)
  // Simulate time and traffic only (timing_trainer.h): no model, no data,
  // payload-free messages of the method's exact sizes.
  bool timingOnly = false;
  // runs/<name>/timeline.json (Chrome trace): "on", "off" or "auto" (on,
  // except for timing-only runs, whose worlds may hold thousands of ranks);
  // the first and last N iterations are kept. resolveConfig() turns "auto"
  // into on or off in ResolvedConfig::given.
  std::string timeline = "auto";
  int64_t timelineIterations = 10;
  // Reliability (docs/reliability.md).
  std::string onNonFinite = "stop";  // stop | skip (nonfinite_guard.h)
  bool checkCollectives = false;     // fingerprint every collective call
  double stallWarn = -1;             // seconds; -1: timeout / 10; 0: no stall reports
  // Checkpoints (checkpoint_store.h): every N iterations and at epoch ends
  // (0: only on SIGINT/SIGTERM); --resume RUNDIR continues that run.
  int64_t checkpointEvery = 0;
  std::string resume;
  // What a resize keeps (docs/reliability.md): "global" the global batch
  // (split over the new worker count), "per-worker" --batch-size per worker
  // (the global batch, and with --lr-scaling linear the peak lr, follow the
  // worker count). Read when a resume changes the worker count.
  std::string resizeBatch = "global";
  // Churn in simulation (membership.h): "leave:K@I,join@I,...", and the
  // simulated seconds each change costs.
  std::string membership;
  double churnRestart = 5;
  // A leave resumes from a checkpoint the survivors write at the iteration
  // it happens (nothing done again), where every survivor holds the whole
  // run (all-reduce every step, churn_run.cc); refused elsewhere.
  bool churnEmergencyCheckpoint = false;
};

// The configuration parsed once into typed values; see the header comment.
struct ResolvedConfig {
  TrainConfig given;  // the flags as given
  // The taxonomy point, canonical (e.g. "topk:0.01,ef", "ps:2:colocated").
  std::string sync, compress, pullCompress, sched;
  ArchShape arch;
  std::string gossip;  // "dpsgd" or "choco:GAMMA" (gossip only)
  // The all-reduce algorithm of the run's own collectives (evaluation,
  // statistics): the arch's with allreduce, ring otherwise.
  AllreduceAlgorithm allreduce = AllreduceAlgorithm::kRing;
  bool mpi = false;
  ComputeSpec compute;
  CodecChargeSpec codecCharge;
  std::vector<Straggler> stragglers;
  PartitionSpec partition;
  LrScheduleSpec lrSchedule;
  bool linearScaling = false;
  uint64_t bucketBytes = 0;
  uint64_t psPartitionBytes = 0;
  NonFinitePolicy onNonFinite = NonFinitePolicy::kStop;
  int64_t nonFiniteEvery = 1;  // stop:K's K
  // Threads of the ComputePool (1: passes inline, no pool); see above.
  int simThreads = 1;
  // SimGrid --cfg items the run uses: --sim-cfg's, plus network/optim:Full
  // for a simulated push-pull run that checkpoints (see resolveConfig()),
  // after the items of --net-model (model/netprofile/net_model_choice.h).
  std::vector<std::string> simConfig;
  // The network model, as config.json records it: --net-model's name, else
  // "cm02" (the default) or "sim-cfg:MODEL" (what --sim-cfg chose); "real" under MPI.
  std::string netModel;
  // The run can be checkpointed (every run that trains a real model).
  bool checkpointable = false;
  // SIGINT/SIGTERM end it cleanly after a checkpoint: it can be
  // checkpointed and its workers can agree on a stop, through the non-finite
  // guard's per-iteration check (collective sync) or at --checkpoint-every's
  // boundaries (push-pull: there, each worker's guard checks alone).
  // Otherwise the signals keep their default action.
  bool stopsOnSignal = false;
  // How the iterations walk the epochs (data/batch_plan.h): unresolved for
  // a run of its own grid (--batch-size x its workers); a resumed run's is
  // its checkpoint's, anchored anew where a per-worker resize changes the
  // global batch (resolveBatchPlan(), checkpoint_store.h).
  BatchPlan batchPlan;
  // --membership, parsed (membership.h).
  std::vector<MembershipEvent> membership;
  // One segment of a run with --membership (churn_run.cc): stop with a
  // checkpoint after this iteration (0: no such stop) or at the first
  // iteration that ends at or after this simulated instant (0: none)...
  int64_t stopAfterIteration = 0;
  double stopAtClock = 0;
  // ...and resume at this simulated instant (-1: the checkpoint's): the time
  // from the checkpoint to it is lost, and counted as training time.
  double resumeAtClock = -1;
  // The change it resumes after, as JSON fields for its metrics.jsonl line.
  std::string membershipNote;
};

// The global batch of a run of `workers` workers: the batch plan's, else
// --batch-size x `workers`.
int64_t globalBatchOf(const ResolvedConfig& config, int workers);
// The run's batch plan: the resolved one of a resumed run, else the uniform
// grid of --batch-size x `workers` in `ownStepsPerEpoch` steps per epoch.
BatchPlan batchPlanOf(const ResolvedConfig& config, int workers, int64_t ownStepsPerEpoch);
// Rank `rank`'s share of the global batch: equal shares, the first
// (global mod workers) ranks one sample more. --batch-size when the run
// keeps its own worker count.
int rankBatchOf(const ResolvedConfig& config, int rank, int workers);

// Names accepted by --model (models.h builds each of them).
const std::vector<std::string>& knownModels();

// Parses and checks `config` (see the header comment). Does not touch the
// file system or the data.
ResolvedConfig resolveConfig(const TrainConfig& config);

// The product of --straggler factors naming `rank` (1 when none); throws
// InvalidArgument for a straggler rank that does not exist among `workers`.
double stragglerSlowdown(const ResolvedConfig& config, int rank, int workers);

// True when a timing-only run's messages must carry payloads: a parameter
// server parses its packets, AD-PSGD's passive task averages the models it
// receives (everything else runs payload-free).
bool timingOnlyNeedsPayloads(const ResolvedConfig& config);

// The ranks a launch needs for `workers` workers (dedicated servers added).
int worldSizeFor(const ResolvedConfig& config, int workers);

// The dataset a resolved configuration asks for.
DataOptions dataOptionsFor(const TrainConfig& config);

// Bytes per gradient bucket for `compress` under --bucket-size `text`:
// "auto" is 25 MiB of fused tensors (PyTorch DDP's cap), with or without a
// compressor: every compressor encodes a fused bucket as one flat vector (and
// batched PowerSGD keeps a matrix per tensor). 0 is one bucket per tensor,
// the layer-wise ablation.
uint64_t bucketBytes(const std::string& text);

// The resolved configuration as a JSON object (config.json).
std::string configToJson(const ResolvedConfig& config, int workers);

// The default run name: model-data-Nw-sync-arch-compress-YYYYmmdd-HHMMSS.
std::string defaultRunName(const ResolvedConfig& config, int workers);

}  // namespace tetrad::train
