// ModelAnchor (model_anchor.h): one pass over the n parameters per average.
#include "tetrad/sync/model_anchor.h"

#include <algorithm>
#include <cstring>

#include "tetrad/core/error.h"

namespace tetrad {

void ModelAnchor::reset(std::span<const float> params) {
  values_.assign(params.begin(), params.end());
}

void ModelAnchor::changeOf(std::span<const float> params, std::vector<float>& change) const {
  TETRAD_CHECK(params.size() == values_.size(), InvalidArgument,
               "model anchor: {} parameters against an anchor of {}", params.size(),
               values_.size());
  change.resize(params.size());
  for (size_t i = 0; i < params.size(); ++i) change[i] = params[i] - values_[i];
}

void ModelAnchor::applyAverage(std::span<float> params, std::span<const float> change) {
  TETRAD_CHECK(params.size() == values_.size() && change.size() == values_.size(), InvalidArgument,
               "model anchor: {} parameters and {} changes against {}", params.size(),
               change.size(), values_.size());
  for (size_t i = 0; i < params.size(); ++i) params[i] = values_[i] + change[i];
  std::copy(params.begin(), params.end(), values_.begin());
}

void ModelAnchor::save(ByteWriter& out) const {
  out.put<uint64_t>(values_.size());
  out.putBytes(std::as_bytes(std::span(values_)));
}

void ModelAnchor::load(ByteReader& in) {
  const auto count = in.get<uint64_t>("anchor size");
  TETRAD_CHECK(count <= in.remaining() / sizeof(float), ProtocolError,
               "anchor of {} values in {} bytes", count, in.remaining());
  const ConstBytes bytes = in.getBytes(size_t(count) * sizeof(float), "anchor");
  values_.resize(size_t(count));
  std::memcpy(values_.data(), bytes.data(), bytes.size());
}

}  // namespace tetrad
