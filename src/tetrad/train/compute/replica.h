// Replica: one rank's copy of the model and everything that trains it
// locally — the model, its flat parameter and gradient buffers
// (flat_model.h), the SGD optimizer (momentum, weight decay, scheduled
// learning rate), this rank's data shard (partition.h) and batches, and the
// compute-time model (compute_model.h). It knows nothing about other ranks:
// the worker loop (rank_trainer.h) decides what to exchange and when.
//
// The model is built from LibTorch's global generator seeded with --seed;
// replicas are made identical afterwards by broadcasting rank 0's parameters
// (rank_trainer.cc), as DDP does, not by the seed.
//
// Never holds a LibTorch thread-local guard (NoGradGuard) across a call that
// may yield to another SimGrid actor.
//
// Replica is the LibTorch WorkerCompute (worker_compute.h); ReplicaSource
// makes one per worker rank from the run's data.
//
// Thread-safety: one Replica per rank, used by that rank's worker only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tetrad/core/bytes.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/compute/flat_model.h"
#include "tetrad/train/compute/models.h"
#include "tetrad/train/compute/worker_compute.h"
#include "tetrad/train/data/batch.h"
#include "tetrad/train/data/batch_plan.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/train_config.h"

namespace tetrad::train {

class Replica final : public WorkerCompute {
 public:
  // `workers`: the data-parallel workers the training set is split over.
  Replica(const ResolvedConfig& config, const DataSplits& data, int rank, int workers);
  ~Replica() override;

  Model& model() { return *model_; }
  FlatModel& flat() { return *flat_; }
  int64_t stepsPerEpoch() const { return plan_.stepsPerEpoch; }

  bool computesValues() const override { return true; }
  std::span<float> parameters() override { return flat_->parameters(); }
  std::span<float> gradients() override { return flat_->gradients(); }
  const std::vector<ParameterSlot>& slots() const override { return flat_->slots(); }
  double forwardFlops() const override { return model_->forwardFlops(); }

  // Forward and backward of this rank's `step`-th batch (epochs follow one
  // another: step / stepsPerEpoch is the epoch) into the gradient buffer.
  BatchOutcome forwardBackward(int64_t step) override;
  // The same pass without the charge (`charged` is 0): computeBatch() then
  // chargeBatch(measured) is forwardBackward(). It touches only the model,
  // the gradients and the data order, never the compute model, so a
  // ComputePool thread may run it while the rank's actor charges the clock.
  BatchOutcome computeBatch(int64_t step) override;
  // One optimizer step with learning rate `lr`; returns the seconds charged.
  double step(double lr) override;
  // The same step without the charge (returns the measured seconds);
  // applyStep() then chargeStep(measured) is step(). Like computeBatch(), a
  // ComputePool thread may run it.
  double applyStep(double lr) override;
  double chargeStep(double measured) override {
    return timer_->charge(measured, stepFlops_, false);
  }

  // --- Overlapped iterations (schedulers other than none) ---
  // The forward pass is a chain of stages (models.h); every parameter (slot
  // of the flat buffers, parameter order) belongs to one.
  int stageCount() const override { return model_->stageCount(); }
  int stageOfSlot(size_t slot) const override { return slotStage_.at(slot); }
  const std::string& stageName(int stage) const override { return model_->stageName(stage); }
  // `ready(slot)` is called during backward() each time a parameter's
  // gradient has been accumulated into the gradient buffer (a post hook on
  // autograd's gradient accumulator, as PyTorch DDP's Reducer does), on the
  // thread running backward(). Null: no calls.
  void onGradientReady(std::function<void(size_t slot)> ready) override {
    gradientReady_ = std::move(ready);
  }
  // Forward of this rank's `step`-th batch, stage by stage; `beforeStage(s)`
  // runs before stage s (a scheduler waits there for the stage's update).
  // Keeps the loss for backward().
  ForwardOutcome forward(int64_t step, const std::function<void(int stage)>& beforeStage) override;
  // Zeroes the gradient buffer and back-propagates the last forward's loss;
  // returns the measured seconds.
  double backward() override;
  // The optimizer step of one stage's parameters (the step of every stage is
  // step()); returns the measured seconds, uncharged.
  double stepStage(int stage, double lr) override;
  // Wall seconds of one forward + backward of the first batch, the model in
  // evaluation mode (batch norm statistics untouched; median of 3); the
  // gradient buffer is left zeroed. For planning schedules.
  double probeBatchSeconds() override;
  // The compute model's charge for one forward + backward that took
  // `measured` seconds, and for one stage's optimizer step.
  double chargeBatch(double measured) override {
    return timer_->charge(measured, batchFlops_, true);
  }
  double chargeStageStep(int stage, double measured) override {
    return timer_->charge(measured, stageStepFlops_.at(size_t(stage)), false);
  }
  // FLOPs of one sample's forward pass through `stage`.
  double stageFlops(int stage) const override { return model_->stageFlops(stage); }
  // True when the compute model charges measured times (else fixed: or
  // flops:, which are known before computing).
  bool chargesMeasured() const override {
    return config_.compute.kind == ComputeSpec::Kind::kMeasured;
  }
  // The clock that times passes and steps (the `measured` seconds above):
  // wall time where the rank computes alone (inline), or the CPU time of the
  // thread running the pass where passes share the cores (a ComputePool,
  // compute_pool.h). Set by the worker loop before the first pass.
  void setPassClock(PassClock clock) override { passClock_ = clock; }

  // This rank's share of the test set (evaluation.h's evaluateOnRanks()).
  EvalResult evaluate(const std::vector<int64_t>& samples, Transport& group,
                      const AllreduceOptions& options, const LocalRunner& runLocal) override;

  // --- Checkpoints (replica_state.cc) ---
  // Everything of this replica that decides its future: the parameters, the
  // optimizers' momentum buffers, the model's buffers (batch-norm
  // statistics) and the compute model's noise stream. The data order is a
  // function of the seed and the epoch, so it needs no state. loadState()
  // checks every size and names `origin` (the file) when one differs.
  ByteBuffer saveState() override;
  void loadState(ConstBytes state, const std::string& origin) override;

 private:
  const ResolvedConfig& config_;
  const DataSplits& data_;
  ModelPtr model_;
  std::unique_ptr<FlatModel> flat_;
  std::vector<std::unique_ptr<torch::optim::SGD>> optimizers_;  // one per stage
  std::vector<int> slotStage_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;  // keeps the hooks alive
  std::function<void(size_t)> gradientReady_;
  torch::Tensor loss_;
  ShardSampler sampler_;
  BatchBuilder batches_;
  BatchBuilder testBatches_;
  std::unique_ptr<ComputeTimer> timer_;
  BatchPlan plan_;
  int rankBatch_ = 0;
  double lossWeight_ = 1.0;
  int64_t orderEpoch_ = -1;
  std::vector<int64_t> order_;
  double batchFlops_ = 0;
  double stepFlops_ = 0;
  PassClock passClock_ = PassClock::kWall;
  std::vector<double> stageStepFlops_;

  void installReadyHook(size_t slot);
  // Seconds on the pass clock (differences only).
  double passClockNow() const;
};

// The LibTorch ComputeSource: replicas of --model on `data` (which must
// outlive the source), and for serving ranks the shape of a model built the
// same way.
class ReplicaSource final : public ComputeSource {
 public:
  ReplicaSource(const ResolvedConfig& config, const DataSplits& data)
      : config_(config), data_(data) {}
  int64_t stepsPerEpoch(int workers, int batch) const override;
  size_t testSamples() const override { return data_.test.size(); }
  std::unique_ptr<WorkerCompute> makeWorker(int rank, int workers) override;
  ModelShape serverShape() override;

 private:
  const ResolvedConfig& config_;
  const DataSplits& data_;
};

}  // namespace tetrad::train
