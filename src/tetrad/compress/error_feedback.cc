// Error feedback (see error_feedback.h).
// Cost: C's cost plus three passes over the residual; no extra wire bytes.
#include "tetrad/compress/error_feedback.h"

#include <vector>

#include "tetrad/core/error.h"

namespace tetrad {
namespace {

void negate(std::span<float> values) {
  for (float& v : values) v = -v;
}

// p = x + e, stored in e.
std::vector<float>& addResidual(std::span<const float> input, CompressorState& state) {
  std::vector<float>& residual = state.buffer(kResidualBuffer, input.size());
  const float* x = input.data();
  float* e = residual.data();
  for (size_t i = 0; i < input.size(); ++i) e[i] += x[i];
  return residual;
}

// e holds p; leaves e = p - decode(packet), without a scratch tensor.
void subtractDecoded(const Compressor& inner, ConstBytes packet, std::span<float> residual) {
  negate(residual);                   // -p
  inner.decodeAdd(packet, residual);  // decode - p
  negate(residual);                   // p - decode
}

}  // namespace

ErrorFeedback::ErrorFeedback(CompressorPtr inner) : inner_(std::move(inner)) {
  TETRAD_CHECK(inner_ != nullptr, InvalidArgument, "error feedback needs a compressor");
}

Packet ErrorFeedback::encode(std::span<const float> input, CompressorState& state) const {
  std::vector<float>& residual = addResidual(input, state);
  Packet packet = inner_->encode(residual, state);
  subtractDecoded(*inner_, packet.bytes, residual);
  return packet;
}

void ErrorFeedback::decodeAdd(ConstBytes packet, std::span<float> output) const {
  inner_->decodeAdd(packet, output);
}

void ErrorFeedback::aggregateCustom(Transport& transport, std::span<float> gradient,
                                    CompressorState& state, const ProtocolOptions& protocol) const {
  std::vector<float>& residual = addResidual(gradient, state);
  std::copy(residual.begin(), residual.end(), gradient.begin());
  // The packet C's protocol will send for p: encode with a copy of the
  // state so that the protocol's own encode sees the same step and buffers.
  CompressorState probe = state;
  probe.buffers.erase(kResidualBuffer);
  Packet packet = inner_->encode(gradient, probe);
  subtractDecoded(*inner_, packet.bytes, residual);
  inner_->aggregateCustom(transport, gradient, state, protocol);
}

std::vector<float> ErrorFeedback::encodeSummable(std::span<const float> input,
                                                 CompressorState& state) const {
  std::vector<float>& residual = addResidual(input, state);
  std::vector<float> values = inner_->encodeSummable(residual, state);
  std::vector<float> local(residual.size(), 0.0f);
  inner_->expandSummed(values, state, local);
  for (size_t i = 0; i < residual.size(); ++i) residual[i] -= local[i];
  return values;
}

void ErrorFeedback::expandSummed(std::span<const float> summed, const CompressorState& state,
                                 std::span<float> output) const {
  inner_->expandSummed(summed, state, output);
}

}  // namespace tetrad
