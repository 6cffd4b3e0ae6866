// resolveConfig (train_config.h): a TrainConfig as given, checked and resolved
// in stages — the method (each part through its registry, and which parts
// combine), the model and data, the cluster and compute model, the optimizer,
// what is recorded (evaluation, timeline, non-finite guard, checkpoints) and
// the network model. The stages run in this order, so the first problem in
// that order is the one reported; each throws InvalidArgument or Unsupported
// with one line naming the flag.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/arch/registry.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/cpu_cores.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/sched/model_zoo.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/compute/device_profile.h"
#include "tetrad/train/compute/model_file.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/loop/lr_schedule.h"
#include "tetrad/train/train_config.h"

namespace tetrad::train {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

// The compressor rule of --timing-only (docs/training.md, "Timing-only
// simulation"); the cluster rule is checked where the cluster is parsed.
void checkTimingOnly(const ResolvedConfig& r) {
  for (const std::string& spec : {r.compress, r.pullCompress}) {
    TETRAD_CHECK(!makeCompressor(spec)->packetSizeDependsOnData(), InvalidArgument,
                 "--timing-only cannot run compressor '{}': its packet size depends on the "
                 "gradient values, which a timing-only run does not compute (fixed-size "
                 "alternatives: topk:R, qsgd:S)",
                 spec);
  }
}

// --engine analytic (transport/analytic_network.h): timing-only on a
// simulated star or two-level cluster, payload-free, and on two levels only
// the all-reduces whose messages never share a node uplink.
void checkEngine(const ResolvedConfig& r) {
  const TrainConfig& c = r.given;
  TETRAD_CHECK(c.engine == "simgrid" || c.engine == "analytic", InvalidArgument,
               "invalid --engine '{}': simgrid or analytic", c.engine);
  if (c.engine != "analytic") return;
  TETRAD_CHECK(c.timingOnly && !r.mpi, InvalidArgument,
               "--engine analytic times simulated --timing-only runs (it computes no model)");
  TETRAD_CHECK(!r.arch.holdsWeights(), InvalidArgument,
               "--engine analytic needs payload-free messages; a parameter server's timing-only "
               "run carries its packets (use --engine simgrid)");
  TETRAD_CHECK(!timingOnlyNeedsPayloads(r), InvalidArgument,  // the parameter server: above
               "--engine analytic needs payload-free messages; AD-PSGD's timing-only run carries "
               "the models it averages (use --engine simgrid)");
  const auto chosen = [&](const std::string& item) {
    return std::find(r.simConfig.begin(), r.simConfig.end(), item) != r.simConfig.end();
  };
  TETRAD_CHECK(chosen("network/model:CM02") && chosen("network/crosstraffic:0"), InvalidArgument,
               "--engine analytic evaluates CM02 without cross traffic: give --net-model cm02 "
               "or profile:FILE (SimGrid's default LV08 shares bandwidth in ways it does not "
               "model)");
  const ClusterNetwork network = clusterNetwork(c.cluster);
  TETRAD_CHECK(network.shape != ClusterShape::kOther, InvalidArgument,
               "--engine analytic models stars and two-level clusters without contention; '{}' "
               "has shared links it would not model (use --engine simgrid)",
               c.cluster);
  const bool sharesUplinks =
      r.allreduce != AllreduceAlgorithm::kRing &&
      r.allreduce != AllreduceAlgorithm::kHierarchical &&
      r.allreduce != AllreduceAlgorithm::kAuto;  // auto: ring or hierarchical there
  TETRAD_CHECK(
      network.shape != ClusterShape::kTwoLevel || network.ranksPerNode == 1 || !sharesUplinks,
      InvalidArgument,
      "--engine analytic on a two-level cluster: the {} all-reduce sends several "
      "messages through one node uplink at once, which it does not model (use ring or "
      "hierarchical, or --engine simgrid)",
      toString(r.allreduce));
}

// The taxonomy point and the schedule rules that join its parts.
SyncPolicyPtr resolveMethod(const TrainConfig& c, ResolvedConfig& r) {
  SyncPolicyPtr sync = makeSyncPolicy(c.sync);
  r.sync = sync->spec();
  r.arch = describeArch(c.arch);
  const SchedulerPtr scheduler = makeScheduler(c.sched);
  r.sched = scheduler->spec();
  const CompressorPtr compress = makeCompressor(c.compress);
  const CompressorPtr pullCompress = makeCompressor(c.psPullCompress);
  r.compress = compress->spec();
  r.pullCompress = pullCompress->spec();
  checkCombination(r.arch, *sync, *compress, *pullCompress, c.gossip);
  r.gossip = c.gossip;
  // Overlap needs a gradient exchange during every backward pass.
  const bool reducesEveryStep = sync->mode() == SyncMode::kCollective && !sync->averagesModels() &&
                                sync->microBatchesPerStep() == 1;
  TETRAD_CHECK(!scheduler->overlapsBackward() || reducesEveryStep, InvalidArgument,
               "--sched {} overlaps the gradient exchange with the backward pass: it needs --sync "
               "bsp (--sync {} does not exchange gradients in every backward pass; use --sched "
               "none)",
               r.sched, r.sync);
  TETRAD_CHECK(!scheduler->gatesForward() || !r.arch.partitionsWholeTensors, InvalidArgument,
               "--sched {} cuts tensors into chunks, and the parameter server partitions whole "
               "tensors (use --sched wfbp, fusion or mgwfbp with --arch {})",
               r.sched, r.arch.canonical);
  TETRAD_CHECK(!scheduler->overlapsBackward() || !r.arch.mixesModels, InvalidArgument,
               "--sched {} overlaps the gradient exchange with the backward pass: --arch {} mixes "
               "whole models after the step (use --sched none)",
               r.sched, r.arch.canonical);
  if (r.arch.averagesByCollective) r.allreduce = r.arch.allreduce;
  return sync;
}

void checkModelAndData(const TrainConfig& c, ResolvedConfig& r) {
  const auto& models = knownModels();
  if (isModelFile(c.model)) {
    std::error_code ec;
    TETRAD_CHECK(std::filesystem::is_regular_file(c.model, ec), InvalidArgument,
                 "--model '{}': no such file (a TorchScript module saved with "
                 "torch.jit.script(model).save(path), or one of {})",
                 c.model, joined(models));
  } else if (sched::isZooModel(c.model)) {
    sched::zooLayers(c.model);  // throws on a bad sequence length
    TETRAD_CHECK(c.timingOnly, InvalidArgument,
                 "--model {} is a layer table (the model zoo, docs/validation.md): it runs "
                 "--timing-only",
                 c.model);
    TETRAD_CHECK(parseComputeSpec(c.compute).kind != ComputeSpec::Kind::kMeasured, InvalidArgument,
                 "--model {} has no LibTorch module to measure: give --compute throughput:S, "
                 "device:NAME, flops:GFLOPS or fixed:DURATION",
                 c.model);
  } else {
    TETRAD_CHECK(std::find(models.begin(), models.end(), c.model) != models.end(), InvalidArgument,
                 "unknown --model '{}' (use one of {}, or a TorchScript FILE.pt)", c.model,
                 joined(models));
  }
  const auto& datasets = knownDatasets();
  TETRAD_CHECK(std::find(datasets.begin(), datasets.end(), c.data) != datasets.end(),
               InvalidArgument, "unknown --data '{}' (use one of {})", c.data, joined(datasets));
  r.partition = parsePartition(c.partition);
}

void resolveClusterAndCompute(const TrainConfig& c, ResolvedConfig& r) {
  r.mpi = isMpiCluster(c.cluster);  // throws on anything but mpi / sim:...
  TETRAD_CHECK(!(r.mpi && c.timingOnly), InvalidArgument,
               "--timing-only simulates the cluster: use --cluster sim:SPEC, not mpi");
  const int fixed = r.mpi ? 0 : fixedHostCount(c.cluster);  // throws on a malformed spec
  if (r.arch.mixesModels) {
    // The topology must fit the workers: checked now where their number is known.
    const int known = c.workers > 0 ? c.workers : (r.mpi || fixed < 0 ? 0 : fixed > 0 ? fixed : 4);
    if (known > 0) parseTopology(r.arch.topology, known, c.seed);
  }
  TETRAD_CHECK(c.workers == -1 || c.workers >= 1, InvalidArgument,
               "invalid --workers {}: need at least one worker", c.workers);
  const bool native =
      r.arch.averagesByCollective && r.arch.allreduce == AllreduceAlgorithm::kNative;
  TETRAD_CHECK(!(native && !r.mpi), Unsupported,
               "--arch allreduce:native needs --cluster mpi (the simulator has no native "
               "all-reduce)");
  TETRAD_CHECK(c.timeout > 0, InvalidArgument, "invalid --timeout {}: must be positive", c.timeout);
  r.compute = parseComputeSpec(c.compute);
  TETRAD_CHECK(c.computeNoise >= 0 && std::isfinite(c.computeNoise), InvalidArgument,
               "invalid --compute-noise {}: must be >= 0", c.computeNoise);
  for (const std::string& s : c.stragglers) {
    Straggler straggler = parseStraggler(s);
    TETRAD_CHECK(c.workers < 0 || straggler.rank < c.workers, InvalidArgument,
                 "invalid --straggler '{}': rank {} does not exist with {} workers", s,
                 straggler.rank, c.workers);
    r.stragglers.push_back(straggler);
  }
  if (r.mpi) {
    TETRAD_CHECK(r.compute.kind == ComputeSpec::Kind::kMeasured && r.compute.scale == 1 &&
                     c.stragglers.empty() && c.computeNoise == 0,
                 Unsupported,
                 "--compute {}, --straggler and --compute-noise model time on a simulated "
                 "cluster; under --cluster mpi computation takes real time",
                 c.compute);
  }
  r.codecCharge =
      resolveCodecCharge(c.codecCost, r.compute, r.mpi, c.timingOnly, {r.compress, r.pullCompress});
  TETRAD_CHECK(c.threads >= 1, InvalidArgument, "invalid --threads {}: need at least 1", c.threads);
  TETRAD_CHECK(c.simThreads >= 0, InvalidArgument,
               "invalid --sim-threads {}: need at least 1 (0: every core)", c.simThreads);
  TETRAD_CHECK(!(r.mpi && c.simThreads > 0), InvalidArgument,
               "--sim-threads {} applies to a simulated cluster; under --cluster mpi each rank is "
               "its own process (see --threads)",
               c.simThreads);
  TETRAD_CHECK(!(c.timingOnly && c.simThreads > 1), InvalidArgument,
               "--sim-threads {} with --timing-only: a timing-only run has no computation to "
               "spread over threads and runs on one",
               c.simThreads);
  // Passes run on threads (compute_pool.h): with fixed: and flops: the
  // charge is known beforehand; with measured, each pass is charged its own
  // thread's CPU time.
  r.simThreads = r.mpi || c.timingOnly ? 1 : c.simThreads > 0 ? c.simThreads : usableCores();
}

void resolveOptimizer(const TrainConfig& c, ResolvedConfig& r) {
  TETRAD_CHECK(c.epochs >= 1, InvalidArgument, "invalid --epochs {}: need at least 1", c.epochs);
  TETRAD_CHECK(c.batchSize >= 1, InvalidArgument, "invalid --batch-size {}: need at least 1",
               c.batchSize);
  r.compute = resolveComputeModel(r.compute, c.model, c.batchSize);
  TETRAD_CHECK(c.lr > 0 && std::isfinite(c.lr), InvalidArgument,
               "invalid --lr {}: must be positive", c.lr);
  TETRAD_CHECK(c.momentum >= 0 && c.momentum < 1, InvalidArgument,
               "invalid --momentum {}: must be in [0, 1)", c.momentum);
  // A compressor that applies momentum itself (DGC's momentum correction,
  // compress/dgc.h; Signum, compress/sign.h) runs on SGD momentum 0: SGD
  // momentum on top would apply a second one (an effective step ten times
  // the lr at 0.9), which no error message would explain. The default
  // --momentum becomes 0; another non-zero one is refused.
  const double ownMomentum = makeCompressor(r.compress)->ownMomentum();
  TETRAD_CHECK(!(ownMomentum > 0 && c.momentum > 0 && c.momentum != model::kDefaultMomentum),
               InvalidArgument,
               "--compress {} applies momentum itself ({}): give --momentum 0 (the default "
               "also runs it with 0), or SGD momentum {} would be applied on top of it",
               r.compress, ownMomentum, c.momentum);
  if (ownMomentum > 0) r.given.momentum = 0;
  TETRAD_CHECK(c.weightDecay >= 0 && std::isfinite(c.weightDecay), InvalidArgument,
               "invalid --weight-decay {}: must be >= 0", c.weightDecay);
  TETRAD_CHECK(c.warmup >= 0 && std::isfinite(c.warmup), InvalidArgument,
               "invalid --warmup {}: must be >= 0 epochs", c.warmup);
  r.lrSchedule = parseLrSchedule(c.lrSchedule);
  TETRAD_CHECK(c.lrScaling == "none" || c.lrScaling == "linear", InvalidArgument,
               "invalid --lr-scaling '{}': use none or linear", c.lrScaling);
  r.linearScaling = c.lrScaling == "linear";
  TETRAD_CHECK(c.resizeBatch == "global" || c.resizeBatch == "per-worker", InvalidArgument,
               "invalid --resize-batch '{}': use global or per-worker", c.resizeBatch);
  r.bucketBytes = bucketBytes(c.bucketSize);
  r.psPartitionBytes = parseBytes(c.psPartition);
  TETRAD_CHECK(r.psPartitionBytes >= sizeof(float), InvalidArgument,
               "invalid --ps-partition '{}': a partition holds at least one float (4 bytes)",
               c.psPartition);
}

// --membership (membership.h): a simulated, checkpointed, collective run.
void resolveMembership(const TrainConfig& c, ResolvedConfig& r, const SyncPolicy& sync) {
  TETRAD_CHECK(c.churnRestart >= 0 && std::isfinite(c.churnRestart), InvalidArgument,
               "invalid --churn-restart {}: seconds >= 0", c.churnRestart);
  if (c.membership.empty()) return;
  r.membership = parseMembership(c.membership);
  TETRAD_CHECK(!r.mpi, InvalidArgument,
               "--membership simulates churn on a simulated cluster; under MPI, run the job "
               "under `tetrad elastic`");
  TETRAD_CHECK(!c.timingOnly, InvalidArgument,
               "--membership with --timing-only: churn resumes from checkpoints of a model");
  TETRAD_CHECK(c.checkpointEvery > 0, InvalidArgument,
               "--membership needs --checkpoint-every N: a lost worker's run resumes from the "
               "newest checkpoint");
  TETRAD_CHECK(c.resume.empty(), InvalidArgument,
               "--membership with --resume: churn is simulated from the start of a run");
  if (!c.churnEmergencyCheckpoint) return;
  // Every survivor holds the whole run after each iteration only where the
  // workers all-reduce every step's gradients: the same model, momenta of
  // the same gradients; a lost worker takes only its compressor's residual.
  const char* why = nullptr;
  if (sync.mode() != SyncMode::kCollective) {
    why = "its workers push and pull on their own, so their models differ";
  } else if (sync.averagesModels()) {
    why = "between averagings the workers' models differ";
  } else if (sync.microBatchesPerStep() > 1) {
    why = "a lost worker takes its share of the accumulated gradients";
  } else if (r.arch.mixesModels) {
    why = "gossiping workers hold models of their own";
  } else if (!r.arch.averagesByCollective) {
    why = "a parameter server's shard state is not on every worker";
  }
  TETRAD_CHECK(why == nullptr, InvalidArgument,
               "--churn-emergency-checkpoint with --sync {} --arch {}: no survivor holds the lost "
               "worker's state ({}); a leave resumes from the newest checkpoint",
               c.sync, c.arch, why);
}

// Evaluation, logging, timeline, the non-finite guard and checkpoints.
void resolveRecording(const TrainConfig& c, ResolvedConfig& r, const SyncPolicy& sync) {
  TETRAD_CHECK(c.evalEvery >= 0 && c.logEvery >= 0 && c.maxIters >= 0, InvalidArgument,
               "--eval-every, --log-every and --max-iters must not be negative");
  TETRAD_CHECK(c.targetAccuracy >= 0 && c.targetAccuracy <= 1, InvalidArgument,
               "invalid --target-accuracy {}: must be in [0, 1]", c.targetAccuracy);
  if (c.timingOnly) checkTimingOnly(r);
  TETRAD_CHECK(c.timeline == "on" || c.timeline == "off" || c.timeline == "auto", InvalidArgument,
               "invalid --timeline '{}': use on, off or auto", c.timeline);
  if (c.timeline == "auto") r.given.timeline = c.timingOnly ? "off" : "on";
  // Payload-free messages cannot carry the ranks' events to rank 0.
  TETRAD_CHECK(!(c.timingOnly && r.given.timeline == "on" && !timingOnlyNeedsPayloads(r)),
               Unsupported,
               "--timeline on with --timing-only: the payload-free simulation carries no event "
               "data to rank 0 (--arch {}); record the timeline on a real run",
               r.arch.canonical);
  TETRAD_CHECK(c.timelineIterations >= 1, InvalidArgument,
               "invalid --timeline-iterations {}: need at least 1", c.timelineIterations);
  r.onNonFinite = parseNonFinitePolicy(c.onNonFinite);
  r.nonFiniteEvery = parseNonFiniteEvery(c.onNonFinite);
  TETRAD_CHECK(r.onNonFinite != NonFinitePolicy::kSkip || sync.mode() != SyncMode::kPushPull,
               Unsupported,
               "--on-nonfinite skip needs a collective --sync (bsp, local:H, post-local): under "
               "{} the workers share no step to skip; use stop",
               r.sync);
  TETRAD_CHECK(c.stallWarn == -1 || (c.stallWarn >= 0 && std::isfinite(c.stallWarn)),
               InvalidArgument,
               "invalid --stall-warn {}: seconds >= 0 (0: no stall reports; default: a tenth of "
               "--timeout)",
               c.stallWarn);
  TETRAD_CHECK(c.checkpointEvery >= 0, InvalidArgument,
               "invalid --checkpoint-every {}: iterations >= 0 (0: only on SIGINT/SIGTERM)",
               c.checkpointEvery);
  // Every run with a model can be checkpointed. The workers agree on a stop
  // signal through the guard's per-iteration check, or at the next
  // checkpoint when the guard is off or under push-pull (where each worker
  // checks alone).
  r.checkpointable = !c.timingOnly;
  const bool agreesEveryIteration =
      r.onNonFinite != NonFinitePolicy::kOff && sync.mode() != SyncMode::kPushPull;
  r.stopsOnSignal = r.checkpointable && (agreesEveryIteration || c.checkpointEvery > 0);
  const bool wantsCheckpoints = c.checkpointEvery > 0 || !c.resume.empty();
  TETRAD_CHECK(!wantsCheckpoints || !c.timingOnly, InvalidArgument,
               "--checkpoint-every/--resume: a --timing-only run has no model to checkpoint");
  resolveMembership(c, r, sync);
}

void resolveNetwork(const TrainConfig& c, ResolvedConfig& r, const SyncPolicy& sync) {
  const bool wantsCheckpoints = c.checkpointEvery > 0 || !c.resume.empty();
  // Under push-pull the order in which nearly simultaneous messages arrive
  // decides the result. SimGrid's default lazy network update rounds flow
  // progress differently depending on the simulation's history, which a
  // resumed run does not have, so such runs use the full update (the same
  // model, evaluated without that shortcut) unless --sim-cfg chose one.
  // Under MPI the network is real; a calibrated profile of it may still guide
  // allreduce:auto's choices (train/loop/allreduce_choice.h).
  TETRAD_CHECK(!r.mpi || c.netModel.empty() ||
                   (c.netModel.starts_with("profile:") &&
                    r.arch.allreduce == AllreduceAlgorithm::kAuto && r.arch.averagesByCollective),
               InvalidArgument,
               "--net-model {} applies to simulated clusters; under MPI the network is real (a "
               "profile:FILE guides only --arch allreduce:auto)",
               c.netModel);
  // No --net-model: cm02 (docs/fidelity.md), unless --sim-cfg picks the model.
  const std::string chosen =
      c.netModel.empty() && !r.mpi ? model::defaultNetModel(c.simConfig) : c.netModel;
  r.simConfig = model::combineSimConfig(model::resolveNetModel(chosen), c.simConfig);
  r.netModel = r.mpi ? "real" : chosen.empty() ? model::impliedNetModel(c.simConfig) : chosen;
  checkEngine(r);
  const bool choosesOptim =
      std::any_of(c.simConfig.begin(), c.simConfig.end(),
                  [](const std::string& item) { return item.starts_with("network/optim:"); });
  if (!r.mpi && wantsCheckpoints && sync.mode() == SyncMode::kPushPull && !choosesOptim) {
    r.simConfig.push_back("network/optim:Full");
  }
  TETRAD_CHECK(c.resume.empty() || c.out.empty() || c.out == c.resume, InvalidArgument,
               "--resume {} continues that run in its own folder; --out {} names another", c.resume,
               c.out);
}

}  // namespace

ResolvedConfig resolveConfig(const TrainConfig& asGiven) {
  // `sim:NxG:device:BW,LAT` takes its first level from --compute device:NAME.
  TrainConfig c = asGiven;
  c.cluster = clusterWithNodeLink(asGiven.cluster, asGiven.compute);
  ResolvedConfig r;
  r.given = c;
  const SyncPolicyPtr sync = resolveMethod(c, r);
  checkModelAndData(c, r);
  resolveClusterAndCompute(c, r);
  resolveOptimizer(c, r);
  resolveRecording(c, r, *sync);
  resolveNetwork(c, r, *sync);
  return r;
}

}  // namespace tetrad::train
