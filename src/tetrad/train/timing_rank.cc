// Cost per iteration: the compute model's seconds + what the sync policy
// exchanges through the architecture, exactly as rank_trainer.cc (ring
// all-reduce of n floats on p workers: 2(p-1)α + 2(p-1)/p·4n·β; the others in
// docs/algorithms.md), with no arithmetic on received data.
#include "tetrad/train/timing_rank.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "tetrad/arch/registry.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"
#include "tetrad/sched/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/compute_model.h"
#include "tetrad/train/lr_schedule.h"
#include "tetrad/train/nonfinite_guard.h"
#include "tetrad/train/run_meter.h"
#include "tetrad/transport/prefix_transport.h"
#include "tetrad/transport/tag_space.h"

namespace tetrad::train {
namespace {

constexpr double kNoModel = std::numeric_limits<double>::quiet_NaN();
constexpr uint64_t kFillStream = 0x7000;

// Seeded values in [-1, 1) (xorshift64; fast enough for thousands of ranks).
void fillSeeded(std::span<float> values, uint64_t seed) {
  uint64_t x = seed | 1;
  for (float& v : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = float(int64_t(x >> 40) - (int64_t{1} << 23)) / float(1 << 23);
  }
}

std::span<float> range(std::span<float> flat, const BucketRange& bucket) {
  return flat.subspan(bucket.offset, bucket.count);
}

// Workers of the run: --workers, else every rank that is not a server.
int workerCount(const ResolvedConfig& config, const Transport& world) {
  const int servers = config.arch.serverRanks;
  const int workers = config.given.workers > 0 ? config.given.workers : world.size() - servers;
  TETRAD_CHECK(workers >= 1 && workers + servers == world.size(), InvalidArgument,
               "--arch {} with {} workers needs {} ranks ({} workers + {} servers) but the "
               "cluster has {}",
               config.arch.canonical, workers, workers + servers, workers, servers, world.size());
  return workers;
}

class TimingRank {
 public:
  TimingRank(const ResolvedConfig& config, const TimingWorkload& workload, Transport& world,
             RunRecorder* recorder, std::vector<RankTotals>& totals, std::vector<float>& shared)
      : config_(config),
        workload_(workload),
        world_(world),
        recorder_(recorder),
        totals_(totals),
        shared_(shared) {}

  RankResult run();

 private:
  void charge(double seconds) {
    if (seconds > 0) world_.compute(seconds);
    meter_->addCompute(seconds);
  }
  double chargeBatch() {
    return timer_->charge(workload_.probe.forwardBackward, batchFlops_, true);
  }
  double chargeStep() { return timer_->charge(workload_.probe.step, stepFlops_, false); }
  void averageBuckets(ExchangeStream stream, std::span<float> flat);
  void allreduceFloats(size_t count, ReduceOp op, Tag tag);
  void consensus();
  void evaluate(int64_t iteration);
  void runCollective();
  void runPushPull();
  void logIteration(int64_t iteration, double lr);

  const ResolvedConfig& config_;
  const TimingWorkload& workload_;
  Transport& world_;
  RunRecorder* recorder_;
  std::vector<RankTotals>& totals_;
  int workers_ = 0;
  std::unique_ptr<PrefixTransport> workerView_;
  Transport* group_ = nullptr;
  TagSpace tags_;
  SyncPolicyPtr sync_;
  std::vector<BucketRange> buckets_;
  ExchangePtr exchange_;
  std::unique_ptr<RunMeter> meter_;
  std::unique_ptr<LrSchedule> schedule_;
  std::unique_ptr<ComputeTimer> timer_;
  std::unique_ptr<NonFiniteGuard> guard_;  // collective runs unless --on-nonfinite off
  std::vector<float>& shared_;             // see run(): the buffer ranks may share
  std::vector<float> grads_, params_;
  std::span<float> gradients_;  // grads_, or shared_
  double batchFlops_ = 0, stepFlops_ = 0;
  int64_t perEpoch_ = 0, total_ = 0, logEvery_ = 1, lastEval_ = -1;
  bool mixes_ = false;  // gossip: the workers' models differ
  // The real run's tags (rank_trainer.cc) for its evaluation and consensus
  // collectives: two spans each (evaluation.h, consensus.h).
  Tag evalTag_ = 0, consensusTag_ = 0;
  RankResult result_;
};

RankResult TimingRank::run() {
  const TrainConfig& c = config_.given;
  workers_ = workerCount(config_, world_);
  const bool worker = world_.rank() < workers_;
  if (workers_ < world_.size() && worker) {
    workerView_ = std::make_unique<PrefixTransport>(world_, workers_);
  }
  group_ = workerView_ ? workerView_.get() : &world_;
  const Tag broadcastTag = tags_.reserve(kCollectiveTagSpan, "the initial broadcast");
  const Tag totalsTag = tags_.reserve(kCollectiveTagSpan, "run totals");
  const Tag guardTag = tags_.reserve(kCollectiveTagSpan, "non-finite guard");
  evalTag_ = tags_.reserve(2 * kCollectiveTagSpan, "evaluation");
  consensusTag_ = tags_.reserve(2 * kCollectiveTagSpan, "consensus metrics");

  perEpoch_ = timingStepsPerEpoch(workload_.trainSamples, workers_, c.batchSize);
  total_ = perEpoch_ * c.epochs;
  if (c.maxIters > 0) total_ = std::min(total_, c.maxIters);
  logEvery_ = c.logEvery > 0 ? c.logEvery : std::max<int64_t>(1, perEpoch_ / 20);
  sync_ = makeSyncPolicy(c.sync, {perEpoch_});
  const SchedulerPtr scheduler = makeScheduler(config_.sched);
  ScheduleInputs inputs;
  inputs.slots = workload_.slots;
  inputs.slotStage.assign(inputs.slots.size(), 0);
  inputs.bucketBytes = config_.bucketBytes;
  buckets_ = scheduler->plan(inputs);
  size_t floats = 0;
  for (const ParameterSlot& slot : workload_.slots) floats += slot.count;

  const bool pushPull = sync_->mode() == SyncMode::kPushPull;
  if (worker) {
    // The gradient buffer stands in for the parameters where nothing keeps
    // them (all-reduce BSP): one buffer per rank instead of two.
    const bool keepsParams =
        pushPull || sync_->averagesModels() || !config_.arch.averagesByCollective;
    // Payload-free ranks whose exchange never reads a value (an uncompressed
    // all-reduce) share one buffer: 10,000 ranks need not each hold a model.
    const bool valuesUnread = !world_.carriesPayload() && !keepsParams &&
                              config_.compress == "none" && config_.arch.averagesByCollective;
    if (valuesUnread) {
      if (shared_.size() != floats) {
        shared_.assign(floats, 0.0f);
        fillSeeded(shared_, mixSeed(c.seed, kFillStream));
      }
      gradients_ = shared_;
    } else {
      grads_.resize(floats);
      fillSeeded(grads_, mixSeed(mixSeed(c.seed, kFillStream), uint64_t(world_.rank())));
      gradients_ = grads_;
    }
    if (keepsParams) params_ = grads_;
    std::span<float> params = keepsParams ? std::span<float>(params_) : gradients_;
    broadcast(*group_, params, {BroadcastAlgorithm::kBinomial, 0, broadcastTag});
  }

  ExchangeContext context;
  context.world = &world_;
  context.workers = group_;
  context.workerCount = workers_;
  context.tags = &tags_;
  context.compress = config_.compress;
  context.pullCompress = config_.pullCompress;
  context.slots = workload_.slots;
  context.buckets = buckets_;
  context.sync = sync_.get();
  context.partitionBytes = config_.psPartitionBytes;
  context.seed = c.seed;
  context.updateLimit = pushPull ? total_ * workers_ : 0;
  context.topology = config_.arch.topology;
  context.gossip = config_.gossip;
  exchange_ = makeExchange(config_.arch.canonical, context);

  RankRole role = RankRole::kWorker;
  if (!worker) {
    role = RankRole::kServer;
    meter_ = std::make_unique<RunMeter>(world_);
    exchange_->serve(nullptr);
  } else {
    const double peak = config_.linearScaling ? c.lr * workers_ : c.lr;
    schedule_ = std::make_unique<LrSchedule>(config_.lrSchedule, peak, c.warmup, perEpoch_, total_);
    timer_ = std::make_unique<ComputeTimer>(config_.compute,
                                            stragglerSlowdown(config_, world_.rank(), workers_),
                                            c.computeNoise, c.seed, world_.rank());
    batchFlops_ = 3.0 * workload_.forwardFlops * c.batchSize;
    stepFlops_ = 4.0 * double(floats);
    exchange_->start(params_.empty() ? std::span<const float>(gradients_)
                                     : std::span<const float>(params_));
    // The real loop's per-iteration agreement (one float per worker, the
    // same all-gather); push-pull workers check locally, without messages.
    if (!pushPull && config_.onNonFinite != NonFinitePolicy::kOff) {
      guard_ =
          std::make_unique<NonFiniteGuard>(*group_, guardTag, workload_.slots, config_.onNonFinite);
    }
    meter_ = std::make_unique<RunMeter>(world_);
    if (pushPull) {
      runPushPull();
    } else {
      runCollective();
    }
    exchange_->finish();
    const int shards = config_.arch.shards > 0 ? config_.arch.shards : workers_;
    if (config_.arch.colocated && world_.rank() < shards) role = RankRole::kWorkerAndServer;
  }

  RankTotals mine = meter_->totals(role);
  const ExchangeStats stats = exchange_->stats();
  mine.updatesApplied = stats.updatesApplied;
  mine.stalenessHistogram = stats.stalenessHistogram;
  TETRAD_CHECK(totals_.size() == size_t(world_.size()), InvalidArgument,
               "timing-only: a totals table of {} slots for {} ranks", totals_.size(),
               world_.size());
  totals_[size_t(world_.rank())] = mine;
  // The real run's all-gather of the totals (the same messages, so the same
  // clock when trainTime is read below). Payload-free, the received totals
  // are blank; the shared table has them: a rank's block reaches every other
  // rank only after that rank wrote its slot.
  std::vector<RankTotals> gathered = gatherTotals(world_, mine, totalsTag);
  result_.ranks = world_.carriesPayload() ? std::move(gathered) : totals_;
  for (const RankTotals& t : result_.ranks) {
    for (const auto& [staleness, count] : t.stalenessHistogram) {
      result_.stalenessHistogram[staleness] += count;
    }
    result_.updatesApplied = std::max(result_.updatesApplied, t.updatesApplied);
  }
  result_.workers = workers_;
  if (pushPull) {
    result_.iterations = result_.updatesApplied / workers_;
    result_.samples = result_.updatesApplied * c.batchSize;
  } else {
    result_.samples = result_.iterations * workers_ * c.batchSize;
  }
  result_.epochs = double(result_.samples) / double(perEpoch_ * workers_ * c.batchSize);
  result_.trainTime = meter_->trainTime();
  result_.wallTime = meter_->wallTime();
  result_.finalAccuracy = result_.finalLoss = kNoModel;
  if (recorder_) recorder_->endProgress();
  return std::move(result_);
}

void TimingRank::averageBuckets(ExchangeStream stream, std::span<float> flat) {
  const double start = world_.now();
  for (size_t b = 0; b < buckets_.size(); ++b)
    exchange_->average(stream, b, range(flat, buckets_[b]));
  meter_->addComm(world_.now() - start);
}

void TimingRank::allreduceFloats(size_t count, ReduceOp op, Tag tag) {
  std::vector<float> values(count, 0.0f);
  allreduce(*group_, values, {config_.allreduce, op, tag});
}

// consensusDistance() of consensus.cc: the average model, then one float.
void TimingRank::consensus() {
  allreduceFloats(params_.size(), ReduceOp::kAverage, consensusTag_);
  allreduceFloats(1, ReduceOp::kSum, consensusTag_ + kCollectiveTagSpan);
}

// RankTrainer::evaluate() of a collective run: the average model (gossip),
// then evaluateOnRanks(): the buffers' average and the statistics' sum.
// Rank 0's evaluation of its own model (gossip) runs on rank 0 alone.
void TimingRank::evaluate(int64_t iteration) {
  meter_->beginEval();
  if (mixes_) allreduceFloats(params_.size(), ReduceOp::kAverage, consensusTag_);
  if (workload_.bufferFloats > 0 && group_->size() > 1)
    allreduceFloats(workload_.bufferFloats, ReduceOp::kAverage, evalTag_ + kCollectiveTagSpan);
  allreduceFloats(3, ReduceOp::kSum, evalTag_);
  meter_->endEval();
  lastEval_ = iteration;
  // The eval line, as a real run writes it (its time: the training time at
  // that evaluation; `tetrad retime` reads the time to target there).
  if (recorder_) {
    MetricsRecord record = meter_->record("eval", iteration, double(iteration) / perEpoch_);
    record.loss = record.accuracy = kNoModel;  // written as null
    recorder_->record(record);
  }
}

void TimingRank::runCollective() {
  const bool mixes = exchange_->mixesModels();
  mixes_ = mixes;
  int64_t iteration = 0, mixSteps = 0;
  while (iteration < total_) {
    const double lr = schedule_->at(iteration);
    SyncPoint point = sync_->at(iteration);
    if (mixes && point.reduceGradients) point = {false, true};
    charge(chargeBatch());
    if (guard_) {
      // No values to scan (an empty buffer is finite): only the messages.
      const double start = world_.now();
      guard_->agree(iteration + 1, 0.0, {});
      meter_->addComm(world_.now() - start);
    }
    if (point.reduceGradients) averageBuckets(ExchangeStream::kGradients, gradients_);
    charge(chargeStep());
    if (point.averageModels && mixes) {
      const double start = world_.now();
      exchange_->mixModels(params_, mixSteps++);
      meter_->addComm(world_.now() - start);
    } else if (point.averageModels) {
      // Local SGD averages the model change; its values do not matter here
      // (the parameter buffer stands in for it).
      averageBuckets(ExchangeStream::kModelChange, params_);
    }
    ++iteration;
    result_.iterations = iteration;
    logIteration(iteration, lr);
    const int64_t every = config_.given.evalEvery;
    if (iteration % perEpoch_ == 0 || (every > 0 && iteration % every == 0)) evaluate(iteration);
  }
  if (lastEval_ != iteration) evaluate(iteration);
}

void TimingRank::runPushPull() {
  const bool output = world_.rank() == 0;
  int64_t global = 0;
  while (true) {
    const double lr = schedule_->at(std::min(global, total_ - 1));
    charge(chargeBatch());
    charge(chargeStep());
    const double start = world_.now();
    const PullResult pull = exchange_->pushPull(grads_, params_);
    meter_->addComm(world_.now() - start);
    if (pull.staleness >= 0) meter_->addStaleness(pull.staleness);
    const int64_t now = std::min(pull.updatesApplied / workers_, total_);
    if (output) {
      for (int64_t i = global + 1; i <= now; ++i) {
        result_.iterations = i;
        logIteration(i, lr);
      }
    }
    global = std::max(global, now);
    if (pull.stop) break;
  }
}

void TimingRank::logIteration(int64_t iteration, double lr) {
  const bool line = iteration % logEvery_ == 0 || iteration == total_;
  if (line && mixes_) {
    meter_->beginEval();
    consensus();
    meter_->endEval();
  }
  if (!recorder_) return;
  if (line) {
    MetricsRecord record = meter_->record("train", iteration, double(iteration) / perEpoch_);
    record.loss = record.accuracy = kNoModel;  // written as null
    record.lr = lr;
    recorder_->record(record);
  }
  recorder_->progress(fmt::format("timing-only  iter {}/{}  sim {:.3f} s  wall {:.1f} s", iteration,
                                  total_, meter_->trainTime(), meter_->wallTime()),
                      false);
}

}  // namespace

int64_t timingStepsPerEpoch(size_t samples, int workers, int batch) {
  TETRAD_CHECK(workers > 0 && batch > 0, InvalidArgument, "invalid workers {} or batch size {}",
               workers, batch);
  return std::max<int64_t>(1, int64_t(samples / (size_t(workers) * size_t(batch))));
}

RankResult runTimingRank(const ResolvedConfig& config, const TimingWorkload& workload,
                         Transport& world, RunRecorder* recorder, std::vector<RankTotals>& totals,
                         std::vector<float>& shared) {
  return TimingRank(config, workload, world, recorder, totals, shared).run();
}

}  // namespace tetrad::train
