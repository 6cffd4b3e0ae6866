#include "tetrad/train/compute/flat_model.h"

#include "tetrad/core/error.h"

namespace tetrad::train {

FlatModel::FlatModel(const std::vector<std::pair<std::string, torch::Tensor>>& namedParameters) {
  int64_t total = 0;
  for (const auto& [name, p] : namedParameters) {
    TETRAD_CHECK(p.scalar_type() == torch::kFloat32 && p.is_contiguous(), Error,
                 "parameter {} is not a contiguous float32 tensor", name);
    total += p.numel();
  }
  parameters_ = torch::zeros({total});
  gradients_ = torch::zeros({total});
  int64_t offset = 0;
  torch::NoGradGuard noGrad;
  for (const auto& [name, p] : namedParameters) {
    torch::Tensor values = parameters_.narrow(0, offset, p.numel()).view(p.sizes());
    values.copy_(p.detach());
    torch::Tensor parameter = p;
    parameter.set_data(values);
    parameter.mutable_grad() = gradients_.narrow(0, offset, p.numel()).view(p.sizes());
    slots_.push_back({name, size_t(p.numel()), p.sizes().vec()});
    tensors_.push_back(parameter);
    offsets_.push_back(size_t(offset));
    offset += p.numel();
  }
}

void FlatModel::checkViews() const {
  const float* params = parameters_.data_ptr<float>();
  const float* grads = gradients_.data_ptr<float>();
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TETRAD_CHECK(tensors_[i].data_ptr<float>() == params + offsets_[i], Error,
                 "parameter {} no longer lives in the flat parameter buffer (it was replaced)",
                 slots_[i].name);
    const torch::Tensor& grad = tensors_[i].grad();
    TETRAD_CHECK(grad.defined() && grad.data_ptr<float>() == grads + offsets_[i], Error,
                 "the gradient of parameter {} no longer lives in the flat gradient buffer "
                 "(autograd replaced it)",
                 slots_[i].name);
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
