// Batch assembly: gathers samples of a Dataset into a normalised float
// tensor, without per-batch allocation.
//
// A BatchBuilder owns two reusable tensors (images [B, C, H, W] float32 and
// labels [B] int64) and fills them from dataset indices, mapping each byte
// through a per-channel table ((v / 255 - mean) / stddev), or each float
// sample value v to (v - mean) / stddev.
//
// Thread-safety: one BatchBuilder per rank; the Dataset is shared read-only.
#pragma once

#include <torch/torch.h>

#include <array>
#include <span>
#include <vector>

#include "tetrad/train/data/dataset.h"

namespace tetrad::train {

class BatchBuilder {
 public:
  BatchBuilder(const Dataset& data, const std::vector<float>& mean,
               const std::vector<float>& stddev);

  // Fills and returns views of the first indices.size() rows of the reused
  // tensors (valid until the next call).
  std::pair<torch::Tensor, torch::Tensor> gather(std::span<const int64_t> indices);

 private:
  const Dataset& data_;
  std::vector<std::array<float, 256>> table_;  // per channel
  std::vector<float> mean_, stddev_;           // per channel (float samples)
  torch::Tensor images_;
  torch::Tensor labels_;
};

}  // namespace tetrad::train
