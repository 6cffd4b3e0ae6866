#include "tetrad/train/flat_gradients.h"

#include "tetrad/core/error.h"

namespace tetrad::train {

FlatGradients::FlatGradients(
    const std::vector<std::pair<std::string, torch::Tensor>>& namedParameters,
    uint64_t bucketBytes) {
  int64_t total = 0;
  for (const auto& [name, p] : namedParameters) {
    TETRAD_CHECK(p.scalar_type() == torch::kFloat32 && p.is_contiguous(), Error,
                 "parameter {} is not a contiguous float32 tensor", name);
    total += p.numel();
  }
  flat_ = torch::zeros({total});
  int64_t offset = 0;
  GradientBucket current;
  int tensorsInCurrent = 0;
  auto closeBucket = [&] {
    if (current.count == 0) return;
    if (tensorsInCurrent != 1) current.shape.clear();
    buckets_.push_back(current);
    current = GradientBucket{};
    current.offset = size_t(offset);
    tensorsInCurrent = 0;
  };
  for (const auto& [name, p] : namedParameters) {
    torch::Tensor view = flat_.narrow(0, offset, p.numel()).view(p.sizes());
    p.mutable_grad() = view;
    names_.push_back(name);
    parameters_.push_back(p);
    expected_.push_back(view.data_ptr<float>());
    uint64_t bytes = uint64_t(p.numel()) * sizeof(float);
    if (current.count > 0 && (current.count * sizeof(float) + bytes > bucketBytes)) {
      closeBucket();
    }
    if (current.count == 0) {
      current.offset = size_t(offset);
      current.shape = p.sizes().vec();
    }
    current.count += size_t(p.numel());
    current.names += (current.names.empty() ? "" : ",") + name;
    ++tensorsInCurrent;
    offset += p.numel();
  }
  closeBucket();
}

void FlatGradients::checkViews() const {
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const torch::Tensor& grad = parameters_[i].grad();
    TETRAD_CHECK(grad.defined() && grad.data_ptr<float>() == expected_[i], Error,
                 "the gradient of parameter {} no longer lives in the flat gradient buffer "
                 "(autograd replaced it)",
                 names_[i]);
  }
}

std::vector<float> flattenParameters(const std::vector<torch::Tensor>& parameters) {
  std::vector<float> flat;
  for (const torch::Tensor& p : parameters) {
    torch::Tensor c = p.detach().contiguous();
    flat.insert(flat.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return flat;
}

}  // namespace tetrad::train
