// The state of one run of RankTrainer (internal to rank_trainer*.cc).
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "tetrad/arch/registry.h"
#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/gradient_accumulator.h"
#include "tetrad/sync/model_anchor.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/checkpoint/checkpoint_store.h"
#include "tetrad/train/checkpoint/checkpoint_writer.h"
#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/compute/worker_compute.h"
#include "tetrad/train/data/batch_plan.h"
#include "tetrad/train/loop/codec_charge.h"
#include "tetrad/train/loop/gradient_error.h"
#include "tetrad/train/loop/lr_schedule.h"
#include "tetrad/train/loop/nonfinite_guard.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/record/timeline.h"
#include "tetrad/transport/prefix_transport.h"
#include "tetrad/transport/tag_space.h"

namespace tetrad::train {

struct RankTrainer::Run {
  int workers = 0;
  std::unique_ptr<PrefixTransport> workerView;  // when servers own ranks
  Transport* group = nullptr;                   // the workers
  TagSpace tags;
  Tag broadcastTag = 0, evalTag = 0, totalsTag = 0, consensusTag = 0, guardTag = 0;
  std::unique_ptr<NonFiniteGuard> guard;  // workers
  // allreduce:auto's choice per message (null for other archs); every
  // all-reduce of the run names it.
  std::unique_ptr<AllreduceSelector> allreduceSelector;
  // Where compressor work is charged (codec_charge.h); null with
  // --codec-cost none.
  std::unique_ptr<RankCodecClock> codecClock;
  GuardRider rider;  // the guard's word on the exchange (nonfinite_guard.h)
  // This iteration's guard agreed on no stop request (its word rode on a
  // summable exchange): a signal is then agreed at the next checkpoint.
  bool stopNotAgreed = false;
  std::unique_ptr<Timeline> timeline;  // every rank (events of workers)
  Tag timelineTag = 0;
  std::unique_ptr<WorkerCompute> compute;  // workers: what computes (worker_compute.h)
  SyncPolicyPtr sync;
  SchedulerPtr scheduler;
  std::vector<BucketRange> buckets;  // the scheduler's units, in send order
  std::vector<int> slotStage;        // forward stage of each parameter
  ExchangePtr exchange;
  std::unique_ptr<RunMeter> meter;
  std::unique_ptr<LrSchedule> schedule;
  std::vector<int64_t> testShard;
  std::vector<int64_t> fullTestSet;  // rank 0: its own model's evaluation (gossip)
  // How the iterations walk the epochs (data/batch_plan.h); total: the
  // iteration count the run ends at.
  BatchPlan plan;
  int64_t total = 0, logEvery = 1;
  // True when `iterations` completed iterations end an epoch (false for a
  // count before the plan's anchor: a push-pull run's global count may lag).
  bool endsEpoch(int64_t iterations) const {
    return iterations >= plan.firstIteration && plan.startsEpoch(iterations);
  }
  // Epochs done after `iterations` (for records; a count before the anchor,
  // which only a lagging push-pull count can be, on the plan's grid).
  double epochsDone(int64_t iterations) const {
    return iterations >= plan.firstIteration ? plan.epochsAt(iterations)
                                             : double(iterations) / double(plan.stepsPerEpoch);
  }
  // The learning-rate schedule's step of iteration `iteration`.
  int64_t lrStep(int64_t iteration) const {
    return plan.gridStep(std::max(iteration, plan.firstIteration));
  }
  int64_t lastEval = -1;
  double lastTest = -1;
  double lastConsensus = -1;
  // Push-pull workers between start and stop: each on its own, so nothing
  // collective (AD-PSGD's x̄ and consensus wait for the end of the run).
  bool apart = false;
  // Checkpoints (rank_trainer_checkpoint.cc): workers' store, the iteration
  // the loop starts from (a resumed run: the checkpoint's), the collective
  // loop's own state (Local SGD's anchor, gossip mixing steps).
  bool checkpointing = false;                    // takes checkpoints, or acts on a stop signal
  std::unique_ptr<CheckpointStore> checkpoints;  // from the first checkpoint on
  // Writes the files off the loop under MPI (checkpoint_writer.h); declared
  // after the store it writes through, so that it is destroyed first.
  std::unique_ptr<CheckpointWriter> checkpointWriter;
  Tag checkpointTag = 0;       // two collective spans: resume agreement, then the folder
  int64_t firstIteration = 0;  // push-pull: this worker's local steps
  int64_t global = 0;          // push-pull: global iterations seen (rank 0 logs up to it)
  double resumeClock = 0;      // a resumed run: the checkpoint's clock and meter
  ByteBuffer resumeMeter;
  uint64_t resumeMetricsBytes = 0;  // rank 0: metrics.jsonl's length at the checkpoint
  // An elastic resize (rank_trainer_resize.cc): the worker count of the
  // checkpoint this run resumed from (0: none, or the same count), and the
  // resizes of the run so far as a JSON array (checkpointed; summary.json).
  int resizedFrom = 0;
  std::string resizes = "[]";
  ModelAnchor anchor;               // Local SGD's model after the last average
  GradientAccumulator accumulated;  // accum:K's micro-batches since the last step
  int64_t mixSteps = 0;
  // Rank 0 of a simulated collective run with a compressor: the compressor
  // measured on its gradients (gradient_error.h); checkpointed.
  std::unique_ptr<GradientErrorProbe> errorProbe;
  // Measured passes on the compute pool: this rank's lookaheads.
  PassLookahead batchLookahead, stepLookahead;
  RankResult result;
};

}  // namespace tetrad::train
