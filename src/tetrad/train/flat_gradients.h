// FlatGradients: one contiguous float32 buffer holding every parameter's
// gradient, and its split into buckets for aggregation.
//
// No-copy design: at construction each parameter's .grad() is set to a view
// into the flat buffer (in parameter order). Autograd accumulates into an
// existing dense .grad() in place (AccumulateGrad's "variable_grad +=
// new_grad" path, which PyTorch DDP relies on too), so after backward() the
// flat buffer holds all gradients and a bucket is just a std::span over it:
// aggregate() compresses and reduces it in place and the optimizer reads the
// result through the same views. zero() clears the buffer before each
// backward; checkViews() verifies that no .grad() was replaced by a new
// tensor (it throws rather than silently training on stale gradients).
//
// Buckets are runs of consecutive parameters of at most `bucketBytes` (a
// tensor is never split; a tensor larger than the limit is a bucket of its
// own; 0 gives one bucket per tensor). A bucket holding exactly one tensor
// keeps that tensor's shape, so PowerSGD sees matrices.
//
// Thread-safety: belongs to one rank.
#pragma once

#include <torch/torch.h>

#include <span>
#include <string>
#include <vector>

namespace tetrad::train {

struct GradientBucket {
  size_t offset = 0;  // in floats
  size_t count = 0;
  std::vector<int64_t> shape;  // the tensor's shape when the bucket holds one tensor
  std::string names;           // the tensors it holds, for messages
};

class FlatGradients {
 public:
  FlatGradients(const std::vector<std::pair<std::string, torch::Tensor>>& namedParameters,
                uint64_t bucketBytes);

  void zero() { flat_.zero_(); }
  // Throws Error naming the first parameter whose .grad() no longer views the
  // flat buffer.
  void checkViews() const;

  const std::vector<GradientBucket>& buckets() const { return buckets_; }
  std::span<float> bucket(size_t i) {
    return {flat_.data_ptr<float>() + buckets_[i].offset, buckets_[i].count};
  }
  std::span<float> all() { return {flat_.data_ptr<float>(), size_t(flat_.numel())}; }
  size_t size() const { return size_t(flat_.numel()); }

 private:
  torch::Tensor flat_;
  std::vector<std::string> names_;
  std::vector<torch::Tensor> parameters_;
  std::vector<const float*> expected_;  // where each .grad() must point
  std::vector<GradientBucket> buckets_;
};

// Copies every parameter into one flat vector (tests, checksums) and back.
std::vector<float> flattenParameters(const std::vector<torch::Tensor>& parameters);

}  // namespace tetrad::train
