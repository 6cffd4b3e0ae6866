// Cost: one encode + decode of the gradient buffer (capped at
// kErrorMeasureElements floats) per measured iteration, on rank 0 only.
#include "tetrad/train/loop/gradient_error.h"

#include "tetrad/compress/registry.h"
#include "tetrad/core/seed.h"
#include "tetrad/model/compression_error.h"

namespace tetrad::train {

GradientErrorProbe::GradientErrorProbe(const std::string& compressSpec,
                                       std::vector<BucketRange> buckets, uint64_t seed)
    : compressor_(makeCompressor(compressSpec)), buckets_(std::move(buckets)), seed_(seed) {
  measures_ = !compressor_->isIdentity();
}

void GradientErrorProbe::measure(std::span<const float> gradients, int64_t iteration) {
  if (!measures_ || samples_ >= kMaxSamples) return;
  const model::ErrorSums sums = model::measureBucketError(*compressor_, gradients, buckets_,
                                                          mixSeed(seed_, uint64_t(iteration)));
  if (!(sums.norm > 0)) return;  // a zero or non-finite gradient says nothing
  error_ += sums.error;
  norm_ += sums.norm;
  ++samples_;
}

double GradientErrorProbe::ratio() const {
  return samples_ > 0 ? error_ / norm_ : -1;
}

ByteBuffer GradientErrorProbe::saveState() const {
  ByteBuffer bytes;
  // Reserved first: GCC 12 warns (-Wstringop-overflow, a false positive) on
  // the first insert into an empty vector once this is inlined.
  bytes.reserve(sizeof error_ + sizeof norm_ + sizeof samples_);
  ByteWriter writer(bytes);
  writer.put(error_);
  writer.put(norm_);
  writer.put(samples_);
  return bytes;
}

void GradientErrorProbe::loadState(ConstBytes state) {
  ByteReader reader(state);
  error_ = reader.get<double>("compression error sum");
  norm_ = reader.get<double>("gradient norm sum");
  samples_ = reader.get<int64_t>("compression error samples");
}

}  // namespace tetrad::train
