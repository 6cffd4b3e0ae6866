// FlatModel: every parameter and every gradient of a model in two contiguous
// float32 buffers, so that exchanging, averaging, pulling and pushing are
// span operations without copies.
//
// At construction each parameter's storage is moved into the flat parameter
// buffer (Tensor::set_data with a view of it, values kept), and each
// parameter's .grad() is set to a view of the flat gradient buffer, both in
// parameter order. The optimizer updates parameters in place and autograd
// accumulates into an existing dense .grad() in place (AccumulateGrad's
// "variable_grad += new_grad" path, which PyTorch DDP relies on too), so
// after backward() the gradient buffer holds every gradient and after
// optimizer.step() the parameter buffer holds the new model. checkViews()
// verifies that no tensor was replaced (it throws rather than silently
// training on stale data).
//
// slots() describes the parameters for the bucket plan (sched/bucketing.h);
// a bucket is a range of both buffers.
//
// Build it before the optimizer. Thread-safety: belongs to one rank.
#pragma once

#include <torch/torch.h>

#include <span>
#include <string>
#include <vector>

#include "tetrad/sched/bucketing.h"

namespace tetrad::train {

class FlatModel {
 public:
  explicit FlatModel(const std::vector<std::pair<std::string, torch::Tensor>>& namedParameters);

  void zeroGradients() { gradients_.zero_(); }
  // Throws Error naming the first parameter or gradient that no longer lives
  // in its flat buffer.
  void checkViews() const;

  const std::vector<ParameterSlot>& slots() const { return slots_; }
  // Parameter `slot` (parameter order) as the model holds it.
  const torch::Tensor& tensor(size_t slot) const { return tensors_.at(slot); }
  size_t size() const { return size_t(parameters_.numel()); }
  std::span<float> parameters() { return {parameters_.data_ptr<float>(), size()}; }
  std::span<float> gradients() { return {gradients_.data_ptr<float>(), size()}; }
  static std::span<float> range(std::span<float> all, const BucketRange& bucket) {
    return all.subspan(bucket.offset, bucket.count);
  }

 private:
  torch::Tensor parameters_, gradients_;
  std::vector<ParameterSlot> slots_;
  std::vector<torch::Tensor> tensors_;
  std::vector<size_t> offsets_;
};

// Copies every parameter into one flat vector (tests, checksums).
std::vector<float> flattenParameters(const std::vector<torch::Tensor>& parameters);

}  // namespace tetrad::train
