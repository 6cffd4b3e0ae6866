// Cost per iteration on p ranks (one BSP step): compute(batch) + the
// aggregation of every bucket (compress/aggregate.h; ring all-reduce of n
// floats: 2(p-1)α + 2(p-1)/p · 4n·β without compression).
#include "tetrad/train/rank_trainer.h"

#include <algorithm>
#include <chrono>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/compress/aggregate.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/train/batch.h"
#include "tetrad/train/compute_model.h"
#include "tetrad/train/evaluation.h"
#include "tetrad/train/flat_gradients.h"
#include "tetrad/train/lr_schedule.h"
#include "tetrad/train/partition.h"
#include "tetrad/train/seeding.h"

namespace tetrad::train {
namespace {

constexpr Tag kStatsTag = 140;
constexpr Tag kAggregateBaseTag = 1000;
constexpr uint64_t kCompressorSeedStream = 0x5000;

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

RankTrainer::RankTrainer(const TrainConfig& config, const DataSplits& data, Transport& transport,
                         RunRecorder* recorder)
    : config_(config), data_(data), transport_(transport), recorder_(recorder) {
  // Same seed on every rank right before construction: identical replicas.
  torch::manual_seed(config.seed);
  model_ = makeModel(config.model, {data.train.channels, data.train.height, data.train.width,
                                    data.train.numClasses});
  model_->train();
}

RankTrainer::~RankTrainer() = default;

RankResult RankTrainer::run(bool keepParameters) {
  const TrainConfig& c = config_;
  Transport& t = transport_;
  const int workers = t.size(), rank = t.rank();
  const bool simulated = t.engine() == "sim";
  AllreduceOptions collective;
  collective.algorithm = parseAllreduceAlgorithm(c.allreduceAlgorithm);

  // Gradients, compressor states (one per bucket, kept across steps), optimizer.
  FlatGradients grads(model_->named_parameters().pairs(), bucketBytes(c.bucketSize, c.compress));
  CompressorPtr compressor = makeCompressor(c.compress);
  std::vector<CompressorState> states(grads.buckets().size());
  for (size_t b = 0; b < states.size(); ++b) {
    states[b].shape = grads.buckets()[b].shape;
    states[b].seed = mixSeed(c.seed, kCompressorSeedStream + b);
    states[b].rank = rank;
  }
  torch::optim::SGD optimizer(
      model_->parameters(),
      torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weightDecay));

  // Data: this rank's shard and its share of the test set.
  const Dataset& train = data_.train;
  ShardSampler sampler(train.labels, train.numClasses, rank, workers, parsePartition(c.partition),
                       c.seed);
  const int64_t perEpoch = stepsPerEpoch(train.size(), workers, c.batchSize);
  int64_t total = perEpoch * c.epochs;
  if (c.maxIters > 0) total = std::min(total, c.maxIters);
  const double peak = c.lrScaling == "linear" ? c.lr * workers : c.lr;
  LrSchedule schedule(parseLrSchedule(c.lrSchedule), peak, c.warmup, perEpoch, total);
  double slowdown = 1;
  for (const std::string& s : c.stragglers) {
    Straggler straggler = parseStraggler(s);
    TETRAD_CHECK(straggler.rank < workers, InvalidArgument,
                 "invalid --straggler '{}': rank {} does not exist with {} workers", s,
                 straggler.rank, workers);
    if (straggler.rank == rank) slowdown *= straggler.factor;
  }
  ComputeTimer timer(parseComputeSpec(c.compute), slowdown, c.computeNoise, c.seed, rank);
  BatchBuilder trainBatches(train, data_.mean, data_.stddev);
  BatchBuilder testBatches(data_.test, data_.mean, data_.stddev);
  std::vector<int64_t> testShard;
  for (size_t i = rank; i < data_.test.size(); i += workers) testShard.push_back(int64_t(i));
  const double stepFlops = 4.0 * double(grads.size());
  const double batchFlops = 3.0 * model_->forwardFlops() * c.batchSize;
  const int64_t logEvery = c.logEvery > 0 ? c.logEvery : std::max<int64_t>(1, perEpoch / 20);

  RankResult result;
  double computeTime = 0, commTime = 0, evalTime = 0, evalWall = 0;
  uint64_t evalSent = 0, evalReceived = 0;
  const double start = t.now();
  const Clock::time_point wallStart = Clock::now();
  auto trainTime = [&] { return t.now() - start - evalTime; };
  MetricsRecord record;
  auto fillRecord = [&](const char* kind, int64_t iteration) {
    record.kind = kind;
    record.iteration = iteration;
    record.epoch = double(iteration) / double(perEpoch);
    record.simTime = trainTime();
    record.wallTime = secondsSince(wallStart) - evalWall;
    record.bytesSent = t.traffic().totalBytesSent() - evalSent;
    record.bytesReceived = t.traffic().totalBytesReceived() - evalReceived;
    record.computeTime = computeTime;
    record.commTime = commTime;
  };
  double lastTest = -1;
  int64_t lastEval = -1;
  auto runEval = [&](int64_t iteration) {
    double evalStart = t.now();
    Clock::time_point evalWallStart = Clock::now();
    uint64_t sent = t.traffic().totalBytesSent(), received = t.traffic().totalBytesReceived();
    EvalResult r = evaluateOnRanks(*model_, testBatches, testShard, t, collective);
    evalSent += t.traffic().totalBytesSent() - sent;
    evalReceived += t.traffic().totalBytesReceived() - received;
    evalTime += t.now() - evalStart;
    evalWall += secondsSince(evalWallStart);
    lastEval = iteration;
    lastTest = r.accuracy;
    result.finalAccuracy = r.accuracy;
    result.finalLoss = r.loss;
    if (c.targetAccuracy > 0 && result.timeToTarget < 0 && r.accuracy >= c.targetAccuracy) {
      result.timeToTarget = trainTime();
      result.iterationsToTarget = iteration;
    }
    if (recorder_) {
      fillRecord("eval", iteration);
      record.loss = r.loss;
      record.accuracy = r.accuracy;
      recorder_->record(record);
    }
  };

  double windowLoss = 0, windowCorrect = 0, windowSamples = 0;
  int64_t iteration = 0;
  for (int64_t epoch = 0; epoch < c.epochs && iteration < total; ++epoch) {
    std::vector<int64_t> order = sampler.epochOrder(epoch, size_t(perEpoch) * c.batchSize);
    for (int64_t step = 0; step < perEpoch && iteration < total; ++step) {
      const double lr = schedule.at(iteration);
      for (auto& group : optimizer.param_groups()) {
        static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
      }
      // Forward and backward into the flat gradient buffer.
      Clock::time_point computeStart = Clock::now();
      auto [images, labels] = trainBatches.gather(
          std::span(order).subspan(size_t(step) * c.batchSize, size_t(c.batchSize)));
      grads.zero();
      torch::Tensor logits = model_->forward(images);
      torch::Tensor loss = torch::nn::functional::cross_entropy(logits, labels);
      loss.backward();
      double measured = secondsSince(computeStart);
      grads.checkViews();
      windowLoss += loss.item<double>() * c.batchSize;
      windowCorrect += double(logits.argmax(1).eq(labels).sum().item<int64_t>());
      windowSamples += c.batchSize;
      double charged = timer.charge(measured, batchFlops, true);
      if (simulated && charged > 0) t.compute(charged);
      computeTime += simulated ? charged : measured;

      // BSP: aggregate every bucket (average over ranks), in place.
      double commStart = t.now();
      for (size_t b = 0; b < grads.buckets().size(); ++b) {
        const Tag tag = kAggregateBaseTag + Tag(b) * kAggregateTagSpan;
        AggregateOptions options;
        options.op = ReduceOp::kAverage;
        options.allreduce = collective.algorithm;
        options.tag = tag;
        aggregate(t, *compressor, grads.bucket(b), states[b], options);
      }
      commTime += t.now() - commStart;

      Clock::time_point stepStart = Clock::now();
      optimizer.step();
      measured = secondsSince(stepStart);
      charged = timer.charge(measured, stepFlops, false);
      if (simulated && charged > 0) t.compute(charged);
      computeTime += simulated ? charged : measured;
      ++iteration;

      if (recorder_ && (iteration % logEvery == 0 || iteration == total)) {
        fillRecord("train", iteration);
        record.loss = windowLoss / windowSamples;
        record.accuracy = windowCorrect / windowSamples;
        record.lr = lr;
        recorder_->record(record);
        windowLoss = windowCorrect = windowSamples = 0;
      }
      if (c.evalEvery > 0 && iteration % c.evalEvery == 0) runEval(iteration);
      if (recorder_) {
        // Loss and accuracy of the current logging window (the last logged
        // window right after a metrics line).
        bool window = windowSamples > 0;
        recorder_->progress(
            fmt::format("epoch {}/{}  iter {}/{}  loss {:.4f}  acc {:.3f}  test {}  {} {:.2f} s  "
                        "wall {:.1f} s",
                        epoch + 1, c.epochs, iteration, total,
                        window ? windowLoss / windowSamples : record.loss,
                        window ? windowCorrect / windowSamples : record.accuracy,
                        lastTest < 0 ? std::string("-") : fmt::format("{:.4f}", lastTest),
                        simulated ? "sim" : "time", trainTime(),
                        secondsSince(wallStart) - evalWall),
            false);
      }
    }
    if (lastEval != iteration) runEval(iteration);
  }
  if (lastEval != iteration) runEval(iteration);

  result.iterations = iteration;
  result.epochs = double(iteration) / double(perEpoch);
  result.trainTime = trainTime();
  result.wallTime = secondsSince(wallStart) - evalWall;
  result.samples = iteration * int64_t(workers) * c.batchSize;

  // Gather every rank's totals: one slot per rank and value, summed.
  const uint64_t sent = t.traffic().totalBytesSent() - evalSent;
  const uint64_t received = t.traffic().totalBytesReceived() - evalReceived;
  constexpr int kFields = 6;
  std::vector<float> stats(size_t(kFields) * workers, 0.f);
  float* mine = stats.data() + size_t(kFields) * rank;
  // Byte counts travel as two floats (high and low 20 bits) to stay exact.
  mine[0] = float(sent >> 20);
  mine[1] = float(sent & 0xfffff);
  mine[2] = float(received >> 20);
  mine[3] = float(received & 0xfffff);
  mine[4] = float(computeTime);
  mine[5] = float(commTime);
  AllreduceOptions sum = collective;
  sum.op = ReduceOp::kSum;
  sum.tag = kStatsTag;
  allreduce(t, stats, sum);
  for (int r = 0; r < workers; ++r) {
    const float* s = stats.data() + size_t(kFields) * r;
    result.bytesSent.push_back((uint64_t(s[0]) << 20) + uint64_t(s[1]));
    result.bytesReceived.push_back((uint64_t(s[2]) << 20) + uint64_t(s[3]));
    result.computeTime.push_back(s[4]);
    result.commTime.push_back(s[5]);
  }
  if (recorder_) recorder_->endProgress();
  if (keepParameters) result.parameters = flattenParameters(model_->parameters());
  return result;
}

}  // namespace tetrad::train
