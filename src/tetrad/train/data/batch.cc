#include "tetrad/train/data/batch.h"

#include "tetrad/core/error.h"

namespace tetrad::train {

BatchBuilder::BatchBuilder(const Dataset& data, const std::vector<float>& mean,
                           const std::vector<float>& stddev)
    : data_(data), table_(data.channels), mean_(mean), stddev_(stddev) {
  TETRAD_CHECK(mean.size() == size_t(data.channels) && stddev.size() == size_t(data.channels),
               InvalidArgument, "normalisation has {} means for {} channels", mean.size(),
               data.channels);
  for (int c = 0; c < data.channels; ++c) {
    for (int v = 0; v < 256; ++v) table_[c][v] = (float(v) / 255.f - mean[c]) / stddev[c];
  }
}

std::pair<torch::Tensor, torch::Tensor> BatchBuilder::gather(std::span<const int64_t> indices) {
  int64_t count = static_cast<int64_t>(indices.size());
  if (!images_.defined() || images_.size(0) < count) {
    images_ = torch::empty({count, data_.channels, data_.height, data_.width});
    labels_ = torch::empty({count}, torch::kInt64);
  }
  size_t sampleSize = data_.sampleSize();
  size_t plane = size_t(data_.height) * data_.width;
  float* out = images_.data_ptr<float>();
  int64_t* labels = labels_.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = indices[i];
    TETRAD_CHECK(index >= 0 && size_t(index) < data_.size(), InvalidArgument,
                 "sample index {} outside a dataset of {} samples", index, data_.size());
    float* row = out + size_t(i) * sampleSize;
    if (data_.holdsFloats()) {
      const float* in = data_.values.data() + size_t(index) * sampleSize;
      for (int c = 0; c < data_.channels; ++c) {
        const float m = mean_[size_t(c)], s = stddev_[size_t(c)];
        for (size_t j = c * plane; j < (c + 1) * plane; ++j) row[j] = (in[j] - m) / s;
      }
    } else {
      const uint8_t* in = data_.images.data() + size_t(index) * sampleSize;
      for (int c = 0; c < data_.channels; ++c) {
        const std::array<float, 256>& table = table_[c];
        for (size_t j = c * plane; j < (c + 1) * plane; ++j) row[j] = table[in[j]];
      }
    }
    labels[i] = data_.labels[index];
  }
  return {images_.narrow(0, 0, count), labels_.narrow(0, 0, count)};
}

}  // namespace tetrad::train
