// Cost per iteration: the compute model's seconds (fixed:, flops:, or the
// probe's) + whatever the worker loop exchanges (rank_trainer.cc).
#include "tetrad/train/compute/nominal_compute.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"
#include "tetrad/sync/registry.h"

namespace tetrad::train {
namespace {

constexpr double kNotComputed = std::numeric_limits<double>::quiet_NaN();
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

class NominalCompute final : public WorkerCompute {
 public:
  NominalCompute(const ResolvedConfig& config, const TimingWorkload& workload, int rank,
                 int workers, std::span<float> sharedGradients, bool keepsParameters)
      : workload_(workload),
        timer_(config.compute, stragglerSlowdown(config, rank, workers), config.given.computeNoise,
               config.given.seed, rank),
        measured_(config.compute.kind == ComputeSpec::Kind::kMeasured) {
    const ModelShape& shape = workload.shape;
    size_t floats = 0;
    for (const ParameterSlot& slot : shape.slots) floats += slot.count;
    const uint64_t seed = mixSeed(config.given.seed, kFillStream);
    if (!sharedGradients.empty()) {
      gradients_ = sharedGradients;
    } else {
      own_.resize(floats);
      fillSeeded(own_, mixSeed(seed, uint64_t(rank)));
      gradients_ = own_;
    }
    // The gradient buffer stands in for the parameters where nothing keeps
    // them apart (all-reduce BSP): one buffer per rank instead of two.
    if (keepsParameters) {
      parameters_.assign(gradients_.begin(), gradients_.end());
    }
    batchFlops_ = 3.0 * shape.forwardFlops * config.given.batchSize;
    stepFlops_ = 4.0 * double(floats);
    stageStepFlops_.assign(shape.stageFlops.size(), 0.0);
    for (size_t i = 0; i < shape.slots.size(); ++i) {
      stageStepFlops_.at(size_t(shape.slotStage[i])) += 4.0 * double(shape.slots[i].count);
    }
  }

  bool computesValues() const override { return false; }
  std::span<float> parameters() override {
    return parameters_.empty() ? gradients_ : std::span<float>(parameters_);
  }
  std::span<float> gradients() override { return gradients_; }
  const std::vector<ParameterSlot>& slots() const override { return workload_.shape.slots; }
  int stageCount() const override { return int(workload_.shape.stageFlops.size()); }
  int stageOfSlot(size_t slot) const override { return workload_.shape.slotStage.at(slot); }
  const std::string& stageName(int stage) const override {
    return workload_.stageNames.at(size_t(stage));
  }
  double stageFlops(int stage) const override {
    return workload_.shape.stageFlops.at(size_t(stage));
  }
  double forwardFlops() const override { return workload_.shape.forwardFlops; }

  BatchOutcome forwardBackward(int64_t step) override {
    BatchOutcome outcome = computeBatch(step);
    outcome.charged = chargeBatch(0);
    return outcome;
  }
  // A finite loss of 0 (the non-finite guard checks it); reported as null.
  BatchOutcome computeBatch(int64_t) override { return {}; }
  double step(double) override { return chargeStep(0); }
  double applyStep(double) override { return 0; }
  // Measured: the probe's seconds (scaled and noised by the timer, as a
  // measured pass's would be); fixed: and flops: as for a real pass.
  double chargeBatch(double measured) override {
    return timer_.charge(measured_ ? workload_.probe.forwardBackward : measured, batchFlops_, true);
  }
  double chargeStep(double measured) override {
    return timer_.charge(measured_ ? workload_.probe.step : measured, stepFlops_, false);
  }
  double chargeStageStep(int stage, double measured) override {
    const double flops = stageStepFlops_.at(size_t(stage));
    const double share = stepFlops_ > 0 ? flops / stepFlops_ : 0;
    return timer_.charge(measured_ ? workload_.probe.step * share : measured, flops, false);
  }
  // Charges are known before a pass (the probe stands for every pass).
  bool chargesMeasured() const override { return false; }
  void setPassClock(PassClock) override {}
  double probeBatchSeconds() override { return workload_.probe.forwardBackward; }

  void onGradientReady(std::function<void(size_t slot)> ready) override {
    ready_ = std::move(ready);
  }
  ForwardOutcome forward(int64_t, const std::function<void(int stage)>& before) override {
    ForwardOutcome outcome;
    for (int s = 0; s < stageCount(); ++s) {
      if (before) before(s);
      outcome.stageSeconds.push_back(0.0);
    }
    return outcome;
  }
  // Autograd's order for a chain of stages: the last parameter first.
  double backward() override {
    if (ready_) {
      for (size_t slot = workload_.shape.slots.size(); slot-- > 0;) ready_(slot);
    }
    return 0;
  }
  double stepStage(int, double) override { return 0; }

  // evaluateOnRanks()'s messages (evaluation.cc): the buffers' average (where
  // the model has buffers and the group more than one rank), then the sum
  // of three statistics; nothing is evaluated.
  EvalResult evaluate(const std::vector<int64_t>&, Transport& group,
                      const AllreduceOptions& options, const LocalRunner&) override {
    if (workload_.bufferFloats > 0 && group.size() > 1) {
      std::vector<float> buffers(workload_.bufferFloats, 0.0f);
      AllreduceOptions average = options;
      average.op = ReduceOp::kAverage;
      average.tag = options.tag + kCollectiveTagSpan;
      allreduce(group, buffers, average);
    }
    std::vector<float> stats(3, 0.0f);
    AllreduceOptions sum = options;
    sum.op = ReduceOp::kSum;
    allreduce(group, stats, sum);
    return {kNotComputed, kNotComputed};
  }

  ByteBuffer saveState() override {
    TETRAD_FAIL(Unsupported, "a --timing-only run has no model to checkpoint");
  }
  void loadState(ConstBytes, const std::string&) override {
    TETRAD_FAIL(Unsupported, "a --timing-only run has no model to restore");
  }

 private:
  const TimingWorkload& workload_;
  ComputeTimer timer_;
  bool measured_;
  std::vector<float> own_, parameters_;
  std::span<float> gradients_;
  double batchFlops_ = 0, stepFlops_ = 0;
  std::vector<double> stageStepFlops_;
  std::function<void(size_t)> ready_;
};

}  // namespace

int64_t timingStepsPerEpoch(size_t samples, int workers, int batch) {
  TETRAD_CHECK(workers > 0 && batch > 0, InvalidArgument, "invalid workers {} or batch size {}",
               workers, batch);
  return std::max<int64_t>(1, int64_t(samples / (size_t(workers) * size_t(batch))));
}

NominalSource::NominalSource(const ResolvedConfig& config, const TimingWorkload& workload,
                             bool payloadFree)
    : config_(config), workload_(workload), payloadFree_(payloadFree) {
  TETRAD_CHECK(workload.shape.slots.size() == workload.shape.slotStage.size() &&
                   workload.stageNames.size() == workload.shape.stageFlops.size(),
               InvalidArgument,
               "timing-only workload: {} slots with {} stages of slots, {} stage names for {} "
               "stages",
               workload.shape.slots.size(), workload.shape.slotStage.size(),
               workload.stageNames.size(), workload.shape.stageFlops.size());
  const SyncPolicyPtr sync = makeSyncPolicy(config.given.sync, {1});
  keepsParameters_ = sync->mode() == SyncMode::kPushPull || sync->averagesModels() ||
                     !config.arch.averagesByCollective;
  valuesUnread_ = payloadFree && !keepsParameters_ &&
                  makeCompressor(config.compress)->isIdentity() && config.arch.averagesByCollective;
}

NominalSource::~NominalSource() = default;

std::unique_ptr<WorkerCompute> NominalSource::makeWorker(int rank, int workers) {
  std::span<float> shared;
  if (valuesUnread_) {
    size_t floats = 0;
    for (const ParameterSlot& slot : workload_.shape.slots) floats += slot.count;
    if (shared_.size() != floats) {
      shared_.assign(floats, 0.0f);
      fillSeeded(shared_, mixSeed(config_.given.seed, kFillStream));
    }
    shared = shared_;
  }
  return std::make_unique<NominalCompute>(config_, workload_, rank, workers, shared,
                                          keepsParameters_);
}

void NominalSource::rankReady(int /*rank*/, int worldSize) {
  const int ready = ++ranksReady_;
  if (worldSize < kSetupProgressRanks || config_.given.quiet) return;
  const int quarter = std::max(1, worldSize / 4);
  if (ready % quarter != 0 && ready != worldSize) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - created_).count();
  std::fprintf(stderr, "  set-up: %d of %d ranks ready (%.1f s)\n", ready, worldSize, seconds);
}

}  // namespace tetrad::train
