// RankTrainer: the worker loop of one rank — the four dimensions composed.
//
//   WorkerCompute (worker_compute.h)  what computes: a Replica (replica.h:
//                                LibTorch model, optimizer, flat buffers, data
//                                shard) or, timing-only, a NominalCompute
//                                (nominal_compute.h: shapes and charges only)
//   SyncPolicy (sync/)           when to exchange: bsp, ssp:S, asp, local:H, ...
//   Exchange   (arch/)           who with whom: allreduce:ALGO, ps[:K][:colocated],
//                                gossip:TOPO
//   Scheduler  (sched/)          the bucket plan and when buckets leave: none
//                                (after backward), wfbp, fusion, mgwfbp, priority
//                                (overlapped: rank_trainer_overlap.cc)
//   RunMeter   (run_meter.h)     time, traffic and metrics bookkeeping
//
// Collective policies (bsp, local, post-local), per iteration:
//   batch -> forward/backward -> [average gradients] -> optimizer step ->
//   [average model changes since the last average]
// as sync->at(iteration) says. Push-pull policies (ssp, asp), per local step:
//   batch -> forward/backward -> optimizer step -> push the model change,
//   pull the latest weights (the servers enforce the staleness bound).
// On gossip, the models are mixed with the neighbours after the step where
// other architectures average (every step under bsp: D-PSGD / CHOCO-SGD;
// every H under local:H). Dedicated server ranks only serve. Replicas start identical because rank
// 0 broadcasts its parameters. Evaluation (the workers' shares of the test set, or rank 0 alone
// under push-pull) is excluded from time and traffic.
//
// Never holds a LibTorch thread-local guard (NoGradGuard) across a transport
// call: under SimGrid every rank is an actor of one thread, and a guard left
// set while another actor runs would leak into that actor.
//
// Thread-safety: one RankTrainer per rank, used by that rank's worker only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/sched/bucketing.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/loop/run_status.h"
#include "tetrad/train/record/run_meter.h"
#include "tetrad/train/record/run_recorder.h"
#include "tetrad/train/train_config.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

class ComputePool;
struct CheckpointAt;
class CheckpointSections;
struct LoopState;
class ComputeSource;
class PassLookahead;
class PendingPass;
struct BatchOutcome;

struct RankResult {
  int workers = 0;         // W (the world may hold servers too)
  int64_t iterations = 0;  // global iterations (push-pull: updates applied / W)
  int64_t updatesApplied = 0;
  double epochs = 0;
  double finalAccuracy = 0;  // gossip: of the average model
  double finalLoss = 0;
  double finalOwnAccuracy = -1;   // gossip: rank 0's own model
  double consensusDistance = -1;  // gossip: at the last metrics line
  double timeToTarget = -1;
  int64_t iterationsToTarget = -1;
  double trainTime = 0;
  double wallTime = 0;
  int64_t samples = 0;                            // training samples processed by all workers
  std::vector<RankTotals> ranks;                  // every rank of the world, in rank order
  std::map<int64_t, int64_t> stalenessHistogram;  // push-pull: over all applied updates
  std::vector<float> parameters;                  // final flat parameters (when requested)
  // kDiverged when the non-finite guard stopped the run (`error` then names
  // rank, iteration and tensor; every worker agrees), kInterrupted when a
  // stop signal did (after writing a checkpoint).
  RunStatus status = RunStatus::kFinished;
  std::string error;
  int64_t skippedSteps = 0;  // --on-nonfinite skip: iterations skipped by every worker
  // Rank 0: its compressor measured on its own gradients, Σ‖C(g) − g‖² / Σ‖g‖²
  // over `compressionErrorSamples` iterations (gradient_error.h); -1: not measured.
  double compressionError = -1;
  int64_t compressionErrorSamples = 0;
  // allreduce:auto: the network its choices were predicted on, and rank 0's
  // choice per vector size (allreduce_auto.h); empty otherwise.
  std::string allreduceNetwork;
  // Elastic resizes on resume, as a JSON array of {iteration, from, to}.
  std::string resizes = "[]";
  std::vector<AllreduceSelection> allreduceChoices;
};

class RankTrainer {
 public:
  // `recorder` is null except on the output rank.
  // `pool` (may be null): threads for the ranks' passes on a simulated
  // cluster (compute_pool.h), shared by every rank of the simulation.
  RankTrainer(const ResolvedConfig& config, const DataSplits& data, Transport& world,
              RunRecorder* recorder, ComputePool* pool = nullptr);
  // The same loop on the workers `source` makes (worker_compute.h), which
  // must outlive the trainer: ReplicaSource above, NominalSource for
  // timing-only runs.
  RankTrainer(const ResolvedConfig& config, ComputeSource& source, Transport& world,
              RunRecorder* recorder, ComputePool* pool = nullptr);
  ~RankTrainer();

  // Trains (or serves) to the end; with `keepParameters`, RankResult::parameters
  // holds this worker's final parameters.
  RankResult run(bool keepParameters = false);

 private:
  struct Run;  // the state of one run (rank_trainer.cc)
  // The loop's part of a checkpoint (loop_state.h).
  friend LoopState loopStateOf(const Run& run, int64_t iteration);
  friend void applyLoopState(Run& run, const LoopState& state);
  // The phases of run(), in order (rank_trainer.cc).
  void setUpRun(Run& run);
  std::vector<ParameterSlot> planBuckets(Run& run, bool worker);
  void makeRunExchange(Run& run, bool worker, const std::vector<ParameterSlot>& slots);
  void trainAsWorker(Run& run, const std::vector<ParameterSlot>& slots);
  void collectTotals(Run& run, RankRole role);
  void runCollective(Run& run);  // rank_trainer_loops.cc
  void runOverlapped(Run& run);  // rank_trainer_overlap.cc (OverlappedIteration)
  void runPushPull(Run& run);    // rank_trainer_loops.cc
  // One forward + backward pass of `step`, charged on the clock and the
  // meter; `start` is set to the instant the pass began. On the pool (when
  // there is one and not `inlineOnly`) the pass runs on a pool thread while
  // this actor sleeps through its charge (known in advance), or, measured,
  // through its lookahead and then the rest of the pass's CPU time
  // (compute_pool.h).
  BatchOutcome computeBatch(Run& run, int64_t step, double& start, bool inlineOnly = false);
  // One optimizer step with learning rate `lr`, charged the same way.
  void applyStep(Run& run, double lr, bool inlineOnly = false);
  // A measured pass on the pool: the lookahead, the wait, the rest; returns
  // the charge (chargeOf() once the pass is done).
  double chargeMeasured(Run& run, PassLookahead& lookahead, PendingPass& pass,
                        const std::function<double()>& chargeOf);
  // The test-set evaluation at `iteration`; with `passesOnPool` its forward
  // passes run on the compute pool (where there is one) while the rank
  // yields: only where nothing else of the rank runs meanwhile (the
  // collective loop with --sched none).
  void evaluate(Run& run, int64_t iteration, bool passesOnPool = false);
  void logIteration(Run& run, int64_t iteration, double lr);
  // Non-finite guard (rank_trainer_guard.cc): true when every worker skips
  // this step (skip) or the run stops (stop: run.result.status "diverged").
  // `scanned`: the guard's scan of this pass's values where the pool ran it
  // (BatchOutcome::nonFiniteScan).
  // `counted`: its time goes to communication (false inside a bracket that
  // leaves it out, guardAfterRide()).
  bool guardStep(Run& run, int64_t iteration, double loss,
                 std::optional<uint32_t> scanned = std::nullopt, bool counted = true);
  // Push-pull: this worker's own check before its update is pushed.
  void guardPushPull(Run& run, int64_t iteration, double loss);
  // stop's word on this iteration's gradient exchange (nonfinite_guard.h):
  // true when the exchange will carry it (then guardAfterRide() decides,
  // after the exchange), false when the guard must run guardStep() first.
  bool armGuardRider(Run& run, int64_t iteration, double loss);
  // After a ridden exchange: the guard's round only when some rank reported.
  void guardAfterRide(Run& run, int64_t iteration, double loss);
  // Checkpoints and stop signals (rank_trainer_checkpoint.cc).
  void setUpCheckpoints(Run& run);
  // Collective over the workers, at the first checkpoint: false when there
  // is no run folder (library use without a recorder).
  bool openCheckpointStore(Run& run);
  void restoreCheckpoint(Run& run);  // collective: every worker fails alike
  int64_t loadCheckpoint(Run& run);  // this worker's file; returns its iteration
  // A checkpoint's loop state, clock, meter, error probe and metrics length
  // (`asNewRank`: another worker's books, for a worker a resize added).
  void loadLoopAndBooks(Run& run, const CheckpointSections& sections, const std::string& origin,
                        int64_t at, bool asNewRank);
  // A checkpoint of another worker count (rank_trainer_resize.cc).
  int64_t loadResized(Run& run, const CheckpointAt& at);
  void saveCheckpoint(Run& run, int64_t iteration);
  // A stop signal, or a --membership segment's end in time (both agreed).
  bool stopRequested(int64_t iteration) const;
  // --checkpoint-every's iterations (and epoch ends), the last excluded.
  bool checkpointDue(const Run& run, int64_t iteration, bool epochEnd) const;
  // After iteration `iteration` (from 1) of a collective loop: writes the
  // checkpoint when due and returns true when the workers agreed to stop
  // (run.result.status "interrupted").
  bool endIteration(Run& run, int64_t iteration, bool epochEnd);

  const ResolvedConfig& config_;
  std::unique_ptr<ComputeSource> ownSource_;  // the first constructor's
  ComputeSource& source_;
  Transport& world_;
  RunRecorder* recorder_;
  ComputePool* pool_;
};

}  // namespace tetrad::train
