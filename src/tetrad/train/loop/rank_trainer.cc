// RankTrainer::run(): one rank's run set up (workers and servers, the
// WorkerCompute, the bucket plan, the exchange, the meter), handed to its
// loop (rank_trainer_loops.cc: collective and push-pull;
// rank_trainer_overlap.cc: overlapped) and summed up (run totals, timeline).
// Cost per iteration: see rank_trainer_loops.cc.
#include "tetrad/train/loop/rank_trainer.h"

#include <algorithm>
#include <array>
#include <memory>

#include "tetrad/arch/registry.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/core/error.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/loop/allreduce_choice.h"
#include "tetrad/train/loop/consensus.h"
#include "tetrad/train/loop/lr_schedule.h"
#include "tetrad/train/loop/nonfinite_guard.h"
#include "tetrad/train/loop/rank_trainer_run.h"
#include "tetrad/train/loop/schedule_setup.h"
#include "tetrad/train/record/timeline_json.h"
#include "tetrad/transport/prefix_transport.h"
#include "tetrad/transport/tag_space.h"

namespace tetrad::train {

namespace {

// Workers of the run: --workers, else every rank that is not a server.
int workerCount(const ResolvedConfig& config, const Transport& world) {
  const int servers = config.arch.serverRanks;
  const int workers = config.given.workers > 0 ? config.given.workers : world.size() - servers;
  TETRAD_CHECK(workers >= 1 && workers + servers == world.size(), InvalidArgument,
               "--arch {} with {} workers needs {} ranks ({} workers + {} servers) but the "
               "cluster has {} (under MPI: mpirun -np {})",
               config.arch.canonical, workers, workers + servers, workers, servers, world.size(),
               workers + servers);
  return workers;
}

// One forward + backward of a batch, for planning: fixed: and flops: from the
// compute model; measured: rank 0's probe, broadcast to the world.
double plannedBatchSecondsOf(const ResolvedConfig& config, Transport& world, WorkerCompute* compute,
                             double batchFlops, Tag tag, PayloadFreeTables* tables) {
  switch (config.compute.kind) {
    case ComputeSpec::Kind::kFixed:
      return config.compute.seconds;
    case ComputeSpec::Kind::kFlops:
      return batchFlops / (config.compute.gflops * 1e9);
    case ComputeSpec::Kind::kMeasured:
      break;
  }
  std::array<double, 1> seconds{0};
  if (world.rank() == 0 && compute != nullptr) {
    seconds[0] = compute->probeBatchSeconds() * config.compute.scale;
  }
  broadcastValues(world, seconds, tag + 2 * kCollectiveTagSpan, tables);
  return seconds[0];
}

// A dedicated server rank's books: its meter, kept in its shard's
// checkpoints (arch/exchange.h).
class MeterBooks final : public ServerBooks {
 public:
  explicit MeterBooks(RunMeter& meter) : meter_(meter) {}
  void excludeTraffic(uint64_t sent, uint64_t received) override {
    meter_.excludeTraffic(sent, received);
  }
  ByteBuffer save() const override { return meter_.saveState(); }
  void load(ConstBytes state) override { meter_.loadState(state); }

 private:
  RunMeter& meter_;
};

}  // namespace

RankTrainer::RankTrainer(const ResolvedConfig& config, ComputeSource& source, Transport& world,
                         RunRecorder* recorder, ComputePool* pool)
    : config_(config), source_(source), world_(world), recorder_(recorder), pool_(pool) {}

RankTrainer::~RankTrainer() = default;

RankResult RankTrainer::run(bool keepParameters) {
  const TrainConfig& c = config_.given;
  Run r;
  setUpRun(r);
  const bool worker = world_.rank() < r.workers;
  const std::vector<ParameterSlot> slots = planBuckets(r, worker);
  makeRunExchange(r, worker, slots);
  source_.rankReady(world_.rank(), world_.size());

  RankRole role = RankRole::kWorker;
  if (!worker) {
    role = RankRole::kServer;
    r.meter = std::make_unique<RunMeter>(world_);
    MeterBooks books(*r.meter);
    r.exchange->serve(&books);
  } else {
    trainAsWorker(r, slots);
    const int shards = config_.arch.shards > 0 ? config_.arch.shards : r.workers;
    if (config_.arch.colocated && world_.rank() < shards) role = RankRole::kWorkerAndServer;
  }
  collectTotals(r, role);
  // Every rank's timeline to rank 0, which writes timeline.json (after the
  // clocks are read: not training time).
  // (Payload-free runs carry no events: resolveConfig() refuses a timeline
  // there, and with none there is nothing to gather.)
  std::vector<TimelineEvent> events;
  if (world_.carriesPayload()) events = gatherTimeline(world_, *r.timeline, r.timelineTag);
  if (recorder_ && c.timeline == "on") {
    writeChromeTrace(recorder_->folder() + "/timeline.json", events,
                     world_.simulatedClock() ? "simulated" : "wall");
  }
  if (recorder_) recorder_->endProgress();
  if (keepParameters && worker) {
    auto params = r.compute->parameters();
    r.result.parameters.assign(params.begin(), params.end());
  }
  return std::move(r.result);
}

// Workers and their group, tags, the timeline, the iteration counts, the
// sync policy and the scheduler.
void RankTrainer::setUpRun(Run& r) {
  const TrainConfig& c = config_.given;
  r.workers = workerCount(config_, world_);
  if (r.workers < world_.size() && world_.rank() < r.workers) {
    r.workerView = std::make_unique<PrefixTransport>(world_, r.workers);
  }
  r.group = r.workerView ? r.workerView.get() : &world_;
  r.broadcastTag = r.tags.reserve(kCollectiveTagSpan, "the initial broadcast");
  r.evalTag = r.tags.reserve(kEvaluationTagSpan, "evaluation");
  r.totalsTag = r.tags.reserve(kCollectiveTagSpan, "run totals");
  r.consensusTag = r.tags.reserve(kConsensusTagSpan, "consensus metrics");
  r.guardTag = r.tags.reserve(kCollectiveTagSpan, "non-finite guard");
  r.timelineTag = r.tags.reserve(kTimelineTagSpan, "timeline");
  r.checkpointTag = r.tags.reserve(2 * kCollectiveTagSpan, "checkpoints");
  r.timeline = std::make_unique<Timeline>(
      world_.rank(),
      TimelineOptions{c.timeline == "on", c.timelineIterations, c.timelineIterations, 1000});

  // A resumed run walks its checkpoint's plan (an elastic resize keeps the
  // global batch, or anchors a plan of the per-worker batch); a new run its
  // own grid.
  r.plan = batchPlanOf(config_, r.workers, source_.stepsPerEpoch(r.workers, c.batchSize));
  r.total = r.plan.iterationsFor(c.epochs);
  if (c.maxIters > 0) r.total = std::min(r.total, c.maxIters);
  r.logEvery = c.logEvery > 0 ? c.logEvery : std::max<int64_t>(1, r.plan.stepsPerEpoch / 20);
  const BatchPlan plan = r.plan;
  r.sync = makeSyncPolicy(c.sync, {r.plan.stepsPerEpoch, r.total,
                                   [plan](int64_t epochs) { return plan.iterationsFor(epochs); }});
  r.scheduler = makeScheduler(config_.sched);
}

// The model's slots (a worker's replica, or a server's shape), the initial
// broadcast, and the scheduler's bucket plan (with the cost model it needs).
std::vector<ParameterSlot> RankTrainer::planBuckets(Run& r, bool worker) {
  const TrainConfig& c = config_.given;
  ScheduleInputs plan;
  std::vector<double> stageFlops;
  double batchFlops = 0;
  if (worker) {
    r.compute = source_.makeWorker(world_.rank(), r.workers);
    // Passes that share the cores with other ranks' passes are timed by
    // their thread's CPU clock (compute_pool.h).
    if (pool_ != nullptr) r.compute->setPassClock(WorkerCompute::PassClock::kThreadCpu);
    plan.slots = r.compute->slots();
    for (size_t i = 0; i < plan.slots.size(); ++i) {
      plan.slotStage.push_back(r.compute->stageOfSlot(i));
    }
    for (int s = 0; s < r.compute->stageCount(); ++s) {
      stageFlops.push_back(r.compute->stageFlops(s));
    }
    // The largest share (rank 0's), so that every rank plans the same buckets.
    batchFlops = 3.0 * r.compute->forwardFlops() * rankBatchOf(config_, 0, r.workers);
    // Identical replicas: rank 0's initial parameters everywhere (as DDP).
    broadcast(*r.group, r.compute->parameters(),
              {BroadcastAlgorithm::kBinomial, 0, r.broadcastTag});
  } else {
    ModelShape shape = source_.serverShape();
    plan.slots = std::move(shape.slots);
    plan.slotStage = std::move(shape.slotStage);
    stageFlops = std::move(shape.stageFlops);
    batchFlops = 3.0 * shape.forwardFlops * c.batchSize;
  }
  plan.bucketBytes = config_.bucketBytes;
  if (r.scheduler->needsCost()) {
    const Tag tag = r.tags.reserve(kScheduleTagSpan, "schedule set-up");
    PayloadFreeTables* tables = world_.carriesPayload() ? nullptr : source_.payloadFreeTables();
    const double batchSeconds =
        plannedBatchSecondsOf(config_, world_, r.compute.get(), batchFlops, tag, tables);
    plan.backwardSeconds = plannedBackwardSeconds(batchSeconds, plan.slotStage, stageFlops);
    plan.cost = messageCost(config_, world_, worker ? r.group : nullptr, r.workers, tag, tables);
  }
  r.buckets = r.scheduler->plan(plan);
  r.slotStage = plan.slotStage;
  return std::move(plan.slots);
}

// The all-reduce selector, the codec clock and the exchange of --arch.
void RankTrainer::makeRunExchange(Run& r, bool worker, const std::vector<ParameterSlot>& slots) {
  const TrainConfig& c = config_.given;
  r.allreduceSelector =
      makeRunAllreduceSelector(config_, world_, worker ? r.group : nullptr, r.workers, r.tags,
                               world_.carriesPayload() ? nullptr : source_.payloadFreeTables());
  if (config_.codecCharge.mode != CodecChargeSpec::Mode::kNone) {
    r.codecClock = std::make_unique<RankCodecClock>(world_, config_.codecCharge);
  }
  ExchangeContext context;
  context.allreduceSelector = r.allreduceSelector.get();
  context.codec = r.codecClock.get();
  context.world = &world_;
  context.workers = r.group;
  context.workerCount = r.workers;
  context.tags = &r.tags;
  context.compress = config_.compress;
  context.pullCompress = config_.pullCompress;
  context.slots = slots;
  context.buckets = r.buckets;
  context.sync = r.sync.get();
  context.partitionBytes = config_.psPartitionBytes;
  context.seed = c.seed;
  const bool pushPull = r.sync->mode() == SyncMode::kPushPull;
  context.updateLimit = pushPull ? r.total * r.workers : 0;
  context.topology = config_.arch.topology;
  context.gossip = config_.gossip;
  r.exchange = makeExchange(config_.arch.canonical, context);
}

// A worker's training: learning-rate schedule, test shards, the guard, the
// exchange's start, checkpoints, then the loop of its sync mode.
void RankTrainer::trainAsWorker(Run& r, const std::vector<ParameterSlot>& slots) {
  const TrainConfig& c = config_.given;
  const bool pushPull = r.sync->mode() == SyncMode::kPushPull;
  const double peak =
      config_.linearScaling ? c.lr * double(globalBatchOf(config_, r.workers) / c.batchSize) : c.lr;
  r.schedule = std::make_unique<LrSchedule>(config_.lrSchedule, peak, c.warmup,
                                            r.plan.stepsPerEpoch, r.lrStep(r.total));
  // Collective evaluation: each worker its share; push-pull: rank 0 alone.
  const size_t testSamples = source_.testSamples();
  const size_t stride = pushPull ? 1 : size_t(r.workers);
  if (!pushPull || world_.rank() == 0) {
    for (size_t i = size_t(world_.rank()); i < testSamples; i += stride) {
      r.testShard.push_back(int64_t(i));
    }
  }
  if (world_.rank() == 0) {
    for (size_t i = 0; i < testSamples; ++i) r.fullTestSet.push_back(int64_t(i));
  }
  if (config_.onNonFinite != NonFinitePolicy::kOff) {
    r.guard = std::make_unique<NonFiniteGuard>(*r.group, r.guardTag, slots, config_.onNonFinite,
                                               config_.nonFiniteEvery);
  }
  r.exchange->start(r.compute->parameters());
  // The compressor on real gradients (ω/δ for the advisor): rank 0 of a
  // simulated collective run that sends after the backward pass.
  if (world_.rank() == 0 && world_.simulatedClock() && !pushPull && r.compute->computesValues() &&
      !r.scheduler->overlapsBackward() && !r.exchange->mixesModels()) {
    r.errorProbe = std::make_unique<GradientErrorProbe>(config_.compress, r.buckets, c.seed);
    if (!r.errorProbe->measures()) r.errorProbe.reset();
  }
  setUpCheckpoints(r);
  // Set-up (the initial broadcast, seeding the servers) is not training.
  r.meter = std::make_unique<RunMeter>(world_);
  if (r.codecClock) r.codecClock->attach(r.meter.get(), r.timeline.get());
  if (!c.resume.empty()) restoreCheckpoint(r);
  if (pushPull) {
    runPushPull(r);
  } else if (r.scheduler->overlapsBackward()) {
    runOverlapped(r);
  } else {
    runCollective(r);
  }
  r.exchange->finish();
  if (r.checkpointWriter) r.checkpointWriter->flush();  // the last checkpoint is on disk
}

// Every rank's totals, gathered, and the run's result computed from them.
void RankTrainer::collectTotals(Run& r, RankRole role) {
  const TrainConfig& c = config_.given;
  const bool worker = world_.rank() < r.workers;
  const bool pushPull = r.sync->mode() == SyncMode::kPushPull;
  RankTotals mine = r.meter->totals(role);
  const ExchangeStats stats = r.exchange->stats();
  mine.updatesApplied = stats.updatesApplied;
  mine.stalenessHistogram = stats.stalenessHistogram;
  // Payload-free, the gathered totals are blank: each rank leaves its own in
  // the source's shared table, which holds every rank's once the all-gather
  // (the same messages as with payloads) is through.
  PayloadFreeTables* tables = world_.carriesPayload() ? nullptr : source_.payloadFreeTables();
  if (tables != nullptr) {
    if (tables->totals.size() != size_t(world_.size()))
      tables->totals.resize(size_t(world_.size()));
    tables->totals[size_t(world_.rank())] = mine;
  }
  r.result.ranks = gatherTotals(world_, mine, r.totalsTag,
                                config_.codecCharge.mode != CodecChargeSpec::Mode::kNone,
                                /*parse=*/tables == nullptr);
  // Payload-free, only rank 0 (which writes the summary) copies the table:
  // a copy per rank is p² totals, the bulk of a 10,000-worker run's memory.
  if (tables != nullptr && world_.rank() == 0) r.result.ranks = tables->totals;
  for (const RankTotals& t : r.result.ranks) {
    for (const auto& [staleness, count] : t.stalenessHistogram) {
      r.result.stalenessHistogram[staleness] += count;
    }
    r.result.updatesApplied = std::max(r.result.updatesApplied, t.updatesApplied);
  }
  r.result.workers = r.workers;
  r.result.resizes = r.resizes;
  // A plan anchored by a per-worker resize counts the samples before its
  // anchor itself (a parameter server's update count was rebased there).
  const bool anchored = r.plan.firstIteration > 0;
  if (pushPull) {
    r.result.iterations = r.result.updatesApplied / r.workers;
    const int64_t since = r.result.updatesApplied - r.plan.firstIteration * r.workers;
    r.result.samples = anchored ? r.plan.samplesBefore + std::max<int64_t>(since, 0) * c.batchSize
                                : r.result.updatesApplied * c.batchSize;
  } else {
    r.result.samples = r.plan.samplesAt(std::max(r.result.iterations, r.plan.firstIteration));
  }
  r.result.epochs =
      pushPull && !anchored
          ? double(r.result.samples) / double(r.plan.stepsPerEpoch * r.plan.globalBatch)
          : r.epochsDone(r.result.iterations);
  r.result.trainTime = r.meter->trainTime();
  // A nominal replica's distance is of seeded values (its messages are sent).
  if (worker && r.compute->computesValues()) r.result.consensusDistance = r.lastConsensus;
  if (r.errorProbe) {
    r.result.compressionError = r.errorProbe->ratio();
    r.result.compressionErrorSamples = r.errorProbe->samples();
  }
  r.result.wallTime = r.meter->wallTime();
  if (r.allreduceSelector) {
    r.result.allreduceNetwork = r.allreduceSelector->source();
    r.result.allreduceChoices = r.allreduceSelector->selections();
  }
}

}  // namespace tetrad::train
