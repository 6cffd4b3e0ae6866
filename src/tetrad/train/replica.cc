#include "tetrad/train/replica.h"

#include <chrono>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double slowdownOf(const ResolvedConfig& config, int rank, int workers) {
  double slowdown = 1;
  for (size_t i = 0; i < config.stragglers.size(); ++i) {
    const Straggler& s = config.stragglers[i];
    TETRAD_CHECK(s.rank < workers, InvalidArgument,
                 "invalid --straggler '{}': rank {} does not exist with {} workers",
                 config.given.stragglers[i], s.rank, workers);
    if (s.rank == rank) slowdown *= s.factor;
  }
  return slowdown;
}

}  // namespace

Replica::Replica(const ResolvedConfig& config, const DataSplits& data, int rank, int workers)
    : config_(config),
      data_(data),
      sampler_(data.train.labels, data.train.numClasses, rank, workers, config.partition,
               config.given.seed),
      batches_(data.train, data.mean, data.stddev) {
  const TrainConfig& c = config.given;
  torch::manual_seed(c.seed);
  model_ = makeModel(
      c.model, {data.train.channels, data.train.height, data.train.width, data.train.numClasses});
  model_->train();
  flat_ = std::make_unique<FlatModel>(model_->named_parameters().pairs());
  optimizer_ = std::make_unique<torch::optim::SGD>(
      model_->parameters(),
      torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weightDecay));
  timer_ = std::make_unique<ComputeTimer>(config.compute, slowdownOf(config, rank, workers),
                                          c.computeNoise, c.seed, rank);
  stepsPerEpoch_ = train::stepsPerEpoch(data.train.size(), workers, c.batchSize);
  batchFlops_ = 3.0 * model_->forwardFlops() * c.batchSize;
  stepFlops_ = 4.0 * double(flat_->size());
}

Replica::~Replica() = default;

BatchOutcome Replica::forwardBackward(int64_t step) {
  const int batch = config_.given.batchSize;
  const int64_t epoch = step / stepsPerEpoch_;
  if (epoch != orderEpoch_) {
    order_ = sampler_.epochOrder(epoch, size_t(stepsPerEpoch_) * size_t(batch));
    orderEpoch_ = epoch;
  }
  const size_t first = size_t(step % stepsPerEpoch_) * size_t(batch);
  const Clock::time_point start = Clock::now();
  auto [images, labels] = batches_.gather(std::span(order_).subspan(first, size_t(batch)));
  flat_->zeroGradients();
  torch::Tensor logits = model_->forward(images);
  torch::Tensor loss = torch::nn::functional::cross_entropy(logits, labels);
  loss.backward();
  BatchOutcome outcome;
  outcome.measured = secondsSince(start);
  flat_->checkViews();
  outcome.loss = loss.item<double>();
  outcome.correct = double(logits.argmax(1).eq(labels).sum().item<int64_t>());
  outcome.charged = timer_->charge(outcome.measured, batchFlops_, true);
  return outcome;
}

double Replica::step(double lr) {
  for (auto& group : optimizer_->param_groups()) {
    static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
  }
  const Clock::time_point start = Clock::now();
  optimizer_->step();
  const double measured = secondsSince(start);
  return timer_->charge(measured, stepFlops_, false);
}

}  // namespace tetrad::train
