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
// Thread-safety: one Replica per rank, used by that rank's worker only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tetrad/train/batch.h"
#include "tetrad/train/compute_model.h"
#include "tetrad/train/dataset.h"
#include "tetrad/train/flat_model.h"
#include "tetrad/train/models.h"
#include "tetrad/train/partition.h"
#include "tetrad/train/train_config.h"

namespace tetrad::train {

struct BatchOutcome {
  double loss = 0;      // mean over the batch
  double correct = 0;   // correct predictions
  double measured = 0;  // wall seconds of forward + backward
  double charged = 0;   // seconds the compute model charges for them
};

class Replica {
 public:
  // `workers`: the data-parallel workers the training set is split over.
  Replica(const ResolvedConfig& config, const DataSplits& data, int rank, int workers);
  ~Replica();

  Model& model() { return *model_; }
  FlatModel& flat() { return *flat_; }
  int64_t stepsPerEpoch() const { return stepsPerEpoch_; }

  // Forward and backward of this rank's `step`-th batch (epochs follow one
  // another: step / stepsPerEpoch is the epoch) into the gradient buffer.
  BatchOutcome forwardBackward(int64_t step);
  // One optimizer step with learning rate `lr`; returns the seconds charged.
  double step(double lr);

 private:
  const ResolvedConfig& config_;
  const DataSplits& data_;
  ModelPtr model_;
  std::unique_ptr<FlatModel> flat_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
  ShardSampler sampler_;
  BatchBuilder batches_;
  std::unique_ptr<ComputeTimer> timer_;
  int64_t stepsPerEpoch_ = 0;
  int64_t orderEpoch_ = -1;
  std::vector<int64_t> order_;
  double batchFlops_ = 0;
  double stepFlops_ = 0;
};

}  // namespace tetrad::train
