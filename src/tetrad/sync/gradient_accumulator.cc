// GradientAccumulator (gradient_accumulator.h): one addition of n floats per
// micro-batch, one scaled addition per step.
#include "tetrad/sync/gradient_accumulator.h"

#include <algorithm>
#include <cstring>

#include "tetrad/core/error.h"

namespace tetrad {

void GradientAccumulator::add(std::span<const float> gradient) {
  if (count_ == 0) {
    sum_.assign(gradient.begin(), gradient.end());
  } else {
    TETRAD_CHECK(gradient.size() == sum_.size(), InvalidArgument,
                 "gradient accumulation: a micro-batch of {} gradients after {} of {}",
                 gradient.size(), count_, sum_.size());
    for (size_t i = 0; i < sum_.size(); ++i) sum_[i] += gradient[i];
  }
  ++count_;
}

void GradientAccumulator::foldInto(std::span<float> gradient) {
  if (count_ == 0) return;
  TETRAD_CHECK(gradient.size() == sum_.size(), InvalidArgument,
               "gradient accumulation: a step on {} gradients after micro-batches of {}",
               gradient.size(), sum_.size());
  const float scale = 1.0f / float(count_ + 1);
  for (size_t i = 0; i < sum_.size(); ++i) gradient[i] = (sum_[i] + gradient[i]) * scale;
  drop();
}

void GradientAccumulator::drop() {
  count_ = 0;
  std::fill(sum_.begin(), sum_.end(), 0.0f);
}

void GradientAccumulator::save(ByteWriter& out) const {
  out.put<int64_t>(count_);
  const size_t floats = count_ > 0 ? sum_.size() : 0;
  out.put<uint64_t>(floats);
  out.putBytes(std::as_bytes(std::span(sum_.data(), floats)));
}

void GradientAccumulator::load(ByteReader& in) {
  const auto count = in.get<int64_t>("accumulated micro-batches");
  const auto floats = in.get<uint64_t>("accumulated gradient size");
  TETRAD_CHECK(
      count >= 0 && (count == 0) == (floats == 0) && floats <= in.remaining() / sizeof(float),
      ProtocolError, "accumulated gradients: {} micro-batches with {} values", count, floats);
  const ConstBytes bytes = in.getBytes(size_t(floats) * sizeof(float), "accumulated gradient");
  sum_.resize(size_t(floats));
  std::memcpy(sum_.data(), bytes.data(), bytes.size());
  count_ = count;
}

}  // namespace tetrad
