#include "tetrad/train/compute/replica.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/evaluation.h"
#include "tetrad/train/compute/wall_clock.h"

namespace tetrad::train {
namespace {
using Clock = WallClock;

// Every thread that computes uses the process's LibTorch thread count (1 on
// the simulator) before its first operation. LibTorch sets a new thread's
// OpenMP thread count only at its first parallel operation, and an optimized
// BLAS called before that (OpenBLAS follows OpenMP's count) would split a
// matrix product over another number of threads — whose result differs in
// the last bits, so a resumed run would no longer equal an uninterrupted one.
void useProcessThreadCount() {
  at::internal::lazy_init_num_threads();
}
}  // namespace

Replica::Replica(const ResolvedConfig& config, const DataSplits& data, int rank, int workers)
    : config_(config),
      data_(data),
      sampler_(data.train.labels, data.train.numClasses, rank, workers, config.partition,
               config.given.seed),
      batches_(data.train, data.mean, data.stddev),
      testBatches_(data.test, data.mean, data.stddev) {
  const TrainConfig& c = config.given;
  model_ = makeSeededModel(
      c.model, {data.train.channels, data.train.height, data.train.width, data.train.numClasses},
      c.seed);
  model_->train();
  flat_ = std::make_unique<FlatModel>(model_->named_parameters().pairs());
  // One SGD per stage, so that a scheduler can update a stage alone; the
  // update is element-wise, so stepping every stage equals one SGD step.
  std::vector<std::vector<torch::Tensor>> stageParameters(size_t(model_->stageCount()));
  for (size_t i = 0; i < flat_->slots().size(); ++i) {
    slotStage_.push_back(model_->stageOfParameter(flat_->slots()[i].name));
    stageParameters[size_t(slotStage_.back())].push_back(flat_->tensor(i));
    installReadyHook(i);
  }
  for (auto& parameters : stageParameters) {
    optimizers_.push_back(std::make_unique<torch::optim::SGD>(
        parameters,
        torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weightDecay)));
  }
  timer_ = std::make_unique<ComputeTimer>(config.compute, stragglerSlowdown(config, rank, workers),
                                          c.computeNoise, c.seed, rank);
  // The batch plan (an elastic resize may keep the global batch): this
  // rank's share of it, and the weight that makes the mean of the ranks'
  // mean gradients the global batch's mean gradient (1 when the shares are
  // equal).
  plan_ =
      batchPlanOf(config, workers, train::stepsPerEpoch(data.train.size(), workers, c.batchSize));
  rankBatch_ = rankBatchOf(config, rank, workers);
  lossWeight_ = double(rankBatch_) * workers / double(plan_.globalBatch);
  batchFlops_ = 3.0 * model_->forwardFlops() * rankBatch_;
  stepFlops_ = 4.0 * double(flat_->size());
  stageStepFlops_.assign(size_t(stageCount()), 0.0);
  for (size_t i = 0; i < flat_->slots().size(); ++i) {
    stageStepFlops_[size_t(slotStage_[i])] += 4.0 * double(flat_->slots()[i].count);
  }
}

Replica::~Replica() = default;

EvalResult Replica::evaluate(const std::vector<int64_t>& samples, Transport& group,
                             const AllreduceOptions& options, const LocalRunner& runLocal) {
  useProcessThreadCount();
  if (!runLocal) return evaluateOnRanks(*model_, testBatches_, samples, group, options);
  return evaluateOnRanks(*model_, testBatches_, samples, group, options,
                         [&runLocal](const std::function<void()>& job) {
                           runLocal([&job] {
                             useProcessThreadCount();  // on the thread that runs it
                             job();
                           });
                         });
}

int64_t ReplicaSource::stepsPerEpoch(int workers, int batch) const {
  return train::stepsPerEpoch(data_.train.size(), workers, batch);
}

std::unique_ptr<WorkerCompute> ReplicaSource::makeWorker(int rank, int workers) {
  return std::make_unique<Replica>(config_, data_, rank, workers);
}

ModelShape ReplicaSource::serverShape() {
  const Dataset& train = data_.train;
  ModelPtr model = makeSeededModel(config_.given.model,
                                   {train.channels, train.height, train.width, train.numClasses},
                                   config_.given.seed);
  ModelShape shape;
  for (const auto& [name, p] : model->named_parameters().pairs()) {
    shape.slots.push_back({name, size_t(p.numel()), p.sizes().vec()});
    shape.slotStage.push_back(model->stageOfParameter(name));
  }
  for (int s = 0; s < model->stageCount(); ++s) shape.stageFlops.push_back(model->stageFlops(s));
  shape.forwardFlops = model->forwardFlops();
  return shape;
}

void Replica::installReadyHook(size_t slot) {
  std::shared_ptr<torch::autograd::Node> accumulator =
      torch::autograd::impl::grad_accumulator(flat_->tensor(slot));
  TETRAD_CHECK(accumulator != nullptr, Error, "parameter {} has no gradient accumulator",
               flat_->slots()[slot].name);
  accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
      [this, slot](const torch::autograd::variable_list& outputs,
                   const torch::autograd::variable_list&) {
        if (gradientReady_) gradientReady_(slot);
        return outputs;
      }));
  accumulators_.push_back(std::move(accumulator));
}

BatchOutcome Replica::forwardBackward(int64_t step) {
  BatchOutcome outcome = computeBatch(step);
  outcome.charged = chargeBatch(outcome.measured);
  return outcome;
}

BatchOutcome Replica::computeBatch(int64_t step) {
  const ForwardOutcome forwarded = forward(step, nullptr);
  BatchOutcome outcome;
  for (double seconds : forwarded.stageSeconds) outcome.measured += seconds;
  outcome.measured += backward();
  outcome.loss = forwarded.loss;
  outcome.correct = forwarded.correct;
  return outcome;
}

double Replica::step(double lr) {
  return chargeStep(applyStep(lr));
}

double Replica::applyStep(double lr) {
  double measured = 0;
  for (int stage = 0; stage < stageCount(); ++stage) measured += stepStage(stage, lr);
  return measured;
}

double Replica::stepStage(int stage, double lr) {
  useProcessThreadCount();
  torch::optim::SGD& optimizer = *optimizers_.at(size_t(stage));
  for (auto& group : optimizer.param_groups()) {
    static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
  }
  const double start = passClockNow();
  optimizer.step();
  return passClockNow() - start;
}

ForwardOutcome Replica::forward(int64_t step, const std::function<void(int stage)>& beforeStage) {
  useProcessThreadCount();
  const int batch = rankBatch_;
  // The epoch's steps from where the plan enters it (its anchor's position
  // in the epoch it was anchored in, else 0).
  const EpochPlace place = plan_.at(step);
  const bool anchorEpoch = place.epoch == plan_.epoch;
  const int64_t from = anchorEpoch ? plan_.position : 0;
  if (place.epoch != orderEpoch_) {
    order_ =
        sampler_.stepOrder(place.epoch, anchorEpoch ? plan_.stepsInFirstEpoch : plan_.stepsPerEpoch,
                           plan_.globalBatch, batch, from);
    orderEpoch_ = place.epoch;
  }
  const size_t first = size_t((place.position - from) / plan_.globalBatch) * size_t(batch);
  ForwardOutcome outcome;
  const double gatherStart = passClockNow();
  auto [images, labels] = batches_.gather(std::span(order_).subspan(first, size_t(batch)));
  const double gatherSeconds = passClockNow() - gatherStart;  // counted with the first stage
  torch::Tensor x = images;
  for (int stage = 0; stage < stageCount(); ++stage) {
    if (beforeStage) beforeStage(stage);
    const double start = passClockNow();
    x = model_->forwardStage(stage, x);
    outcome.stageSeconds.push_back(passClockNow() - start + (stage == 0 ? gatherSeconds : 0.0));
  }
  const double start = passClockNow();
  loss_ = torch::nn::functional::cross_entropy(x, labels);
  outcome.stageSeconds.back() += passClockNow() - start;
  outcome.loss = loss_.item<double>();
  if (lossWeight_ != 1.0) loss_ = loss_ * lossWeight_;  // uneven shares (see the constructor)
  outcome.correct = double(x.argmax(1).eq(labels).sum().item<int64_t>());
  return outcome;
}

double Replica::probeBatchSeconds() {
  model_->eval();
  std::vector<double> times;
  for (int rep = 0; rep < 3; ++rep) {
    const Clock::time_point start = Clock::now();
    forward(0, nullptr);
    backward();
    times.push_back(secondsSince(start));
  }
  model_->train();
  flat_->zeroGradients();
  std::sort(times.begin(), times.end());
  return times[1];
}

double Replica::passClockNow() const {
  if (passClock_ == PassClock::kThreadCpu) return threadCpuSeconds();
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

double Replica::backward() {
  TETRAD_CHECK(loss_.defined(), Error, "backward() without a forward()");
  useProcessThreadCount();
  const double start = passClockNow();
  flat_->zeroGradients();
  loss_.backward();
  loss_ = torch::Tensor();
  const double measured = passClockNow() - start;
  flat_->checkViews();
  return measured;
}

}  // namespace tetrad::train
