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

std::vector<float>& addResidual(HalfInput input, CompressorState& state) {
  std::vector<float>& residual = state.buffer(kResidualBuffer, input.size());
  addWidenedHalf(input.format, input.bytes.data(), residual);
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

Packet ErrorFeedback::encodeStep(std::span<const float> input, CompressorState& state) const {
  return packetFromResidual(addResidual(input, state), state);
}

Packet ErrorFeedback::encodeHalfStep(HalfInput input, CompressorState& state) const {
  return packetFromResidual(addResidual(input, state), state);
}

Packet ErrorFeedback::packetFromResidual(std::vector<float>& residual,
                                         CompressorState& state) const {
  Packet packet = encodeStepOf(*inner_, residual, state);
  subtractDecoded(*inner_, packet.bytes, residual);
  return packet;
}

void ErrorFeedback::decodeAdd(ConstBytes packet, std::span<float> output) const {
  inner_->decodeAdd(packet, output);
}

void ErrorFeedback::aggregateCustomStep(Transport& transport, std::span<float> gradient,
                                        CompressorState& state,
                                        const ProtocolOptions& protocol) const {
  std::vector<float>& residual = addResidual(gradient, state);
  std::copy(residual.begin(), residual.end(), gradient.begin());
  // The packet C's protocol will send for p: encode with a copy of the
  // state so that the protocol's own encode sees the same step and buffers
  // (the copy is discarded, with its advanced step).
  CompressorState probe = state;
  probe.buffers.erase(kResidualBuffer);
  Packet packet = inner_->encode(gradient, probe);
  subtractDecoded(*inner_, packet.bytes, residual);
  aggregateCustomStepOf(*inner_, transport, gradient, state, protocol);
}

std::vector<float> ErrorFeedback::encodeSummableStep(std::span<const float> input,
                                                     CompressorState& state) const {
  return summableFromResidual(addResidual(input, state), state);
}

std::vector<float> ErrorFeedback::encodeSummableHalfStep(HalfInput input,
                                                         CompressorState& state) const {
  return summableFromResidual(addResidual(input, state), state);
}

std::vector<float> ErrorFeedback::summableFromResidual(std::vector<float>& residual,
                                                       CompressorState& state) const {
  std::vector<float> values = encodeSummableStepOf(*inner_, residual, state);
  // This rank's own values expanded: still inside the step, whose index is
  // state.step.
  std::vector<float> local(residual.size(), 0.0f);
  expandSummedStepOf(*inner_, values, state, state.step, local);
  for (size_t i = 0; i < residual.size(); ++i) residual[i] -= local[i];
  return values;
}

void ErrorFeedback::expandSummedStep(std::span<const float> summed, const CompressorState& state,
                                     uint64_t step, std::span<float> output) const {
  expandSummedStepOf(*inner_, summed, state, step, output);
}

}  // namespace tetrad
