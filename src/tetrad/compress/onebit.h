// `onebit`: 1-bit SGD (Seide, Fu, Droppo, Li, Yu, "1-Bit Stochastic Gradient
// Descent and its Application to Data-Parallel Distributed Training of Speech
// DNNs", Interspeech 2014).
//
// Every element is sent as its sign bit. The receiver reconstructs positive
// elements as the mean of the positive values and negative ones as the mean
// of the negative values, per tensor ("onebit") or per column of the tensor
// viewed as a [shape[0], rest] matrix ("onebit:col", two floats per column;
// a tensor without a shape is one column). Error feedback is built in, as in
// the paper: the quantisation error is kept in state.buffers["residual"] and
// added to the next step's gradient, so ",ef" is refused.
//
// 1 bit per element + 64 bits per reconstruction pair; biased; aggregation:
// gather (all-gather the packets, decode and sum).
//
// Stateless object; the CompressorState has one owner at a time.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class OneBitCompressor final : public Compressor {
 public:
  explicit OneBitCompressor(bool perColumn) : perColumn_(perColumn) {}
  std::string spec() const override { return perColumn_ ? "onebit:col" : "onebit"; }
  Aggregation aggregation() const override { return Aggregation::kGather; }
  Packet encode(std::span<const float> input, CompressorState& state) const override;
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  // For onebit:col this assumes a flat tensor (one column); each further
  // column adds 64 bits.
  double bitsPerElement(size_t count) const override;

 private:
  bool perColumn_;
};

CompressorPtr makeOneBit(const CompressorParams& params);

}  // namespace tetrad
