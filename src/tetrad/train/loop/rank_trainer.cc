// Cost per iteration: compute(batch) + what the sync policy exchanges
// through the architecture (docs/algorithms.md: ring all-reduce of n floats
// on p workers 2(p-1)α + 2(p-1)/p·4n·β; parameter server and Local SGD there
// too).
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
#include "tetrad/train/loop/consensus.h"
#include "tetrad/train/compute/evaluation.h"
#include "tetrad/train/loop/lr_schedule.h"
#include "tetrad/train/loop/nonfinite_guard.h"
#include "tetrad/train/loop/rank_trainer_run.h"
#include "tetrad/train/compute/replica.h"
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

void charge(Transport& world, RunMeter& meter, double seconds) {
  if (seconds > 0) world.compute(seconds);
  meter.addCompute(seconds);
}

}  // namespace

RankTrainer::RankTrainer(const ResolvedConfig& config, const DataSplits& data, Transport& world,
                         RunRecorder* recorder, ComputePool* pool)
    : config_(config),
      ownSource_(std::make_unique<ReplicaSource>(config, data)),
      source_(*ownSource_),
      world_(world),
      recorder_(recorder),
      pool_(pool) {}

RankTrainer::RankTrainer(const ResolvedConfig& config, ComputeSource& source, Transport& world,
                         RunRecorder* recorder, ComputePool* pool)
    : config_(config), source_(source), world_(world), recorder_(recorder), pool_(pool) {}

RankTrainer::~RankTrainer() = default;

RankResult RankTrainer::run(bool keepParameters) {
  const TrainConfig& c = config_.given;
  Run r;
  r.workers = workerCount(config_, world_);
  const bool worker = world_.rank() < r.workers;
  if (r.workers < world_.size() && worker) {
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

  r.perEpoch = source_.stepsPerEpoch(r.workers, c.batchSize);
  r.total = r.perEpoch * c.epochs;
  if (c.maxIters > 0) r.total = std::min(r.total, c.maxIters);
  r.logEvery = c.logEvery > 0 ? c.logEvery : std::max<int64_t>(1, r.perEpoch / 20);
  r.sync = makeSyncPolicy(c.sync, {r.perEpoch});
  r.scheduler = makeScheduler(config_.sched);

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
    batchFlops = 3.0 * r.compute->forwardFlops() * c.batchSize;
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
  const std::vector<ParameterSlot>& slots = plan.slots;

  ExchangeContext context;
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

  RankRole role = RankRole::kWorker;
  if (!worker) {
    role = RankRole::kServer;
    r.meter = std::make_unique<RunMeter>(world_);
    MeterBooks books(*r.meter);
    r.exchange->serve(&books);
  } else {
    const double peak = config_.linearScaling ? c.lr * r.workers : c.lr;
    r.schedule =
        std::make_unique<LrSchedule>(config_.lrSchedule, peak, c.warmup, r.perEpoch, r.total);
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
      r.guard = std::make_unique<NonFiniteGuard>(*r.group, r.guardTag, slots, config_.onNonFinite);
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
    if (!c.resume.empty()) restoreCheckpoint(r);
    if (pushPull) {
      runPushPull(r);
    } else if (r.scheduler->overlapsBackward()) {
      runOverlapped(r);
    } else {
      runCollective(r);
    }
    r.exchange->finish();
    const int shards = config_.arch.shards > 0 ? config_.arch.shards : r.workers;
    if (config_.arch.colocated && world_.rank() < shards) role = RankRole::kWorkerAndServer;
  }

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
  r.result.ranks = gatherTotals(world_, mine, r.totalsTag);
  if (tables != nullptr) r.result.ranks = tables->totals;
  for (const RankTotals& t : r.result.ranks) {
    for (const auto& [staleness, count] : t.stalenessHistogram) {
      r.result.stalenessHistogram[staleness] += count;
    }
    r.result.updatesApplied = std::max(r.result.updatesApplied, t.updatesApplied);
  }
  r.result.workers = r.workers;
  if (pushPull) {
    r.result.iterations = r.result.updatesApplied / r.workers;
    r.result.samples = r.result.updatesApplied * c.batchSize;
  } else {
    r.result.samples = r.result.iterations * r.workers * c.batchSize;
  }
  r.result.epochs = double(r.result.samples) / double(r.perEpoch * r.workers * c.batchSize);
  r.result.trainTime = r.meter->trainTime();
  // A nominal replica's distance is of seeded values (its messages are sent).
  if (worker && r.compute->computesValues()) r.result.consensusDistance = r.lastConsensus;
  if (r.errorProbe) {
    r.result.compressionError = r.errorProbe->ratio();
    r.result.compressionErrorSamples = r.errorProbe->samples();
  }
  r.result.wallTime = r.meter->wallTime();
  // Every rank's timeline to rank 0, which writes timeline.json (after the
  // clocks are read: not training time).
  // (Payload-free runs carry no events: resolveConfig() refuses a timeline
  // there, and with none there is nothing to gather.)
  std::vector<TimelineEvent> events;
  if (world_.carriesPayload() || c.timeline == "on")
    events = gatherTimeline(world_, *r.timeline, r.timelineTag);
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

double RankTrainer::chargeMeasured(Run& r, PassLookahead& lookahead, PendingPass& pass,
                                   const std::function<double()>& chargeOf) {
  const double ahead = lookahead.seconds();
  if (ahead > 0) world_.compute(ahead);  // the ranks released meanwhile go on
  pass.finishWhileYielding(world_);
  double charged = chargeOf();
  if (charged < ahead) {
    pool_->countRaisedCharge();
    charged = ahead;
  }
  if (charged > ahead) world_.compute(charged - ahead);
  r.meter->addCompute(charged);
  lookahead.add(charged);
  return charged;
}

BatchOutcome RankTrainer::computeBatch(Run& r, int64_t step, double& start, bool inlineOnly) {
  WorkerCompute& replica = *r.compute;
  if (pool_ != nullptr && !inlineOnly && replica.chargesMeasured()) {
    // The charge is the pass's CPU time: sleep through the lookahead, wait
    // for the pass while the ranks released meanwhile hand over theirs, then
    // sleep the rest (compute_pool.h).
    start = world_.now();
    BatchOutcome batch;
    PendingPass pass =
        pool_->submit([&replica, &batch, step] { batch = replica.computeBatch(step); });
    batch.charged = chargeMeasured(r, r.batchLookahead, pass,
                                   [&] { return replica.chargeBatch(batch.measured); });
    return batch;
  }
  if (pool_ != nullptr && !inlineOnly) {
    start = world_.now();
    const double charged = replica.chargeBatch(0);  // known before the pass
    BatchOutcome batch;
    PendingPass pass =
        pool_->submit([&replica, &batch, step] { batch = replica.computeBatch(step); });
    charge(world_, *r.meter, charged);  // the other ranks go on meanwhile
    pass.finish();
    batch.charged = charged;
    return batch;
  }
  const BatchOutcome batch = replica.forwardBackward(step);
  // Under MPI the batch has just taken real time; under SimGrid it is charged now.
  start = world_.now() - (world_.simulatedClock() ? 0 : batch.measured);
  charge(world_, *r.meter, batch.charged);
  return batch;
}

void RankTrainer::applyStep(Run& r, double lr, bool inlineOnly) {
  WorkerCompute& replica = *r.compute;
  if (pool_ != nullptr && !inlineOnly && replica.chargesMeasured()) {
    double measured = 0;
    PendingPass pass =
        pool_->submit([&replica, &measured, lr] { measured = replica.applyStep(lr); });
    chargeMeasured(r, r.stepLookahead, pass, [&] { return replica.chargeStep(measured); });
    return;
  }
  if (pool_ != nullptr && !inlineOnly) {
    const double charged = replica.chargeStep(0);
    PendingPass pass = pool_->submit([&replica, lr] { replica.applyStep(lr); });
    charge(world_, *r.meter, charged);
    pass.finish();
    return;
  }
  charge(world_, *r.meter, replica.step(lr));
}

void RankTrainer::runCollective(Run& r) {
  const std::span<float> params = r.compute->parameters(), grads = r.compute->gradients();
  // Gossip mixes models where the others average: D-PSGD mixes after every
  // step (adapt, then combine), local:H every H steps.
  const bool mixes = r.exchange->mixesModels();
  std::vector<float>& anchor = r.anchor;  // checkpointed
  std::vector<float> change;
  if (r.sync->averagesModels() && !mixes && anchor.empty()) {
    anchor.assign(params.begin(), params.end());
  }
  int64_t iteration = r.firstIteration;
  while (iteration < r.total) {
    const double lr = r.schedule->at(iteration);
    SyncPoint point = r.sync->at(iteration);
    if (mixes && point.reduceGradients) point = {false, true};
    double mark = 0;
    const BatchOutcome batch = computeBatch(r, iteration, mark);
    r.timeline->add(TimelineTrack::kCompute, "forward+backward", "compute", mark, world_.now(),
                    iteration);
    // Non-finite loss or gradient on any worker: every worker skips or stops.
    const bool skip = guardStep(r, iteration, batch.loss);
    if (r.result.status != RunStatus::kFinished) break;
    if (skip) point = {false, false};
    if (!skip) r.meter->addBatch(batch.loss, batch.correct, config_.given.batchSize);
    // The compressor on this gradient: at the first iteration and before
    // each evaluation (wall time only; the simulated clock does not move).
    const int64_t every = config_.given.evalEvery;
    const int64_t next = iteration + 1;
    if (r.errorProbe && point.reduceGradients &&
        (iteration == 0 || next % r.perEpoch == 0 || (every > 0 && next % every == 0))) {
      r.errorProbe->measure(grads, iteration);
    }

    if (point.reduceGradients) {
      const double start = world_.now();
      double from = start;
      for (size_t b = 0; b < r.buckets.size(); ++b) {
        r.exchange->average(ExchangeStream::kGradients, b,
                            grads.subspan(r.buckets[b].offset, r.buckets[b].count));
        const double to = world_.now();
        r.timeline->add(TimelineTrack::kCommunication, fmt::format("bucket {}", b), "comm", from,
                        to, iteration, r.buckets[b].count * sizeof(float), int64_t(b));
        from = to;
      }
      r.meter->addComm(world_.now() - start);
    }
    mark = world_.now();
    if (!skip) applyStep(r, lr);
    r.timeline->add(TimelineTrack::kCompute, "optimizer", "optimizer", mark, world_.now(),
                    iteration);
    if (point.averageModels && mixes) {
      const double start = world_.now();
      r.exchange->mixModels(params, r.mixSteps++);
      r.meter->addComm(world_.now() - start);
      r.timeline->add(TimelineTrack::kCommunication, "gossip", "comm", start, world_.now(),
                      iteration);
    } else if (point.averageModels) {
      // Local SGD: average the change since the last average, then move on.
      const double start = world_.now();
      change.resize(params.size());
      for (size_t i = 0; i < params.size(); ++i) change[i] = params[i] - anchor[i];
      for (size_t b = 0; b < r.buckets.size(); ++b) {
        r.exchange->average(
            ExchangeStream::kModelChange, b,
            std::span<float>(change).subspan(r.buckets[b].offset, r.buckets[b].count));
      }
      for (size_t i = 0; i < params.size(); ++i) params[i] = anchor[i] + change[i];
      std::copy(params.begin(), params.end(), anchor.begin());
      r.meter->addComm(world_.now() - start);
      r.timeline->add(TimelineTrack::kCommunication, "model average", "comm", start, world_.now(),
                      iteration);
    } else if (!anchor.empty() && point.reduceGradients) {
      std::copy(params.begin(), params.end(), anchor.begin());  // BSP phase of post-local
    }
    ++iteration;
    r.result.iterations = iteration;
    logIteration(r, iteration, lr);
    const bool epochEnd = iteration % r.perEpoch == 0;
    if (epochEnd || (every > 0 && iteration % every == 0)) evaluate(r, iteration);
    if (endIteration(r, iteration, epochEnd)) break;
  }
  if (r.lastEval != iteration && r.result.status != RunStatus::kInterrupted) evaluate(r, iteration);
}

void RankTrainer::runPushPull(Run& r) {
  const std::span<float> params = r.compute->parameters();
  std::vector<float> anchor(params.begin(), params.end()), change(params.size());
  const bool output = world_.rank() == 0;
  // AD-PSGD (gossip under asp): the models differ; x̄ is evaluated by all
  // workers together once every worker has stopped.
  const bool mixes = r.exchange->mixesModels();
  r.apart = true;
  int64_t step = r.firstIteration;
  int64_t& global = r.global;  // checkpointed
  while (true) {
    const double lr = r.schedule->at(std::min(global, r.total - 1));
    double computeStart = 0;
    // AD-PSGD's passive task mixes into the model while the worker computes:
    // the pass must see the model as it is when it starts (inline).
    const BatchOutcome batch = computeBatch(r, step, computeStart, mixes);
    guardPushPull(r, global, batch.loss);  // before the update is pushed
    r.meter->addBatch(batch.loss, batch.correct, config_.given.batchSize);
    applyStep(r, lr, mixes);
    r.timeline->add(TimelineTrack::kCompute, "forward+backward+optimizer", "compute", computeStart,
                    world_.now(), step);

    const double start = world_.now();
    for (size_t i = 0; i < params.size(); ++i) change[i] = params[i] - anchor[i];
    const PullResult pull = r.exchange->pushPull(change, params);
    std::copy(params.begin(), params.end(), anchor.begin());
    r.meter->addComm(world_.now() - start);
    r.timeline->add(TimelineTrack::kCommunication, "push/pull", "comm", start, world_.now(), step);
    ++step;
    if (pull.staleness >= 0) r.meter->addStaleness(pull.staleness);

    const int64_t now = std::min(pull.updatesApplied / r.workers, r.total);
    if (output) {
      // Global iterations crossed since the last pull: log and evaluate.
      for (int64_t i = global + 1; i <= now; ++i) {
        r.result.iterations = i;
        logIteration(r, i, lr);
        const int64_t every = config_.given.evalEvery;
        const bool due = i % r.perEpoch == 0 || (every > 0 && i % every == 0) || i == r.total;
        if (due && !(mixes && i == r.total)) evaluate(r, i);  // AD-PSGD's last: below
      }
    }
    global = std::max(global, now);
    if (pull.stop) break;
    // A checkpoint after this local step (the same one on every worker).
    if (endIteration(r, step, step % r.perEpoch == 0)) break;
  }
  if (r.result.status == RunStatus::kInterrupted) {
    if (mixes) r.exchange->finish();  // every passive task drained; no evaluation
    return;
  }
  if (mixes) {
    r.apart = false;
    r.exchange->finish();  // AD-PSGD: every averaging done and absorbed (run() finds it done)
    evaluate(r, global);   // every worker: x̄, rank 0's own model, consensus
  } else if (output && r.lastEval != global) {
    evaluate(r, global);
  }
}

}  // namespace tetrad::train
