// `onebit`: 1-bit SGD (Seide, Fu, Droppo, Li, Yu, "1-Bit Stochastic Gradient
// Descent and its Application to Data-Parallel Distributed Training of Speech
// DNNs", Interspeech 2014).
//
// Every element is sent as its sign bit. The receiver reconstructs positive
// elements as the mean of the positive values and negative ones as the mean
// of the negative values, per tensor ("onebit") or per column of the tensor
// viewed as a [shape[0], rest] matrix ("onebit:col", two floats per column;
// a tensor without a shape is one column). Error feedback is built in, as in
// the paper: the quantisation error is added to the next step's gradient, so
// ",ef" is refused.
//
// Residual representation (shared with efsign, efsign.h). Encoding forms
// p = x + e and sends C(p), whose reconstruction values need a whole-tensor
// (or whole-column) mean, so the true residual e = p − C(p) is not stored;
// instead the state keeps
//   buffers["residual"]          the uncorrected p of the last encode (n floats);
//   buffers["residual_pending"]  the pairs (positive value, negative value)
//                                that packet reconstructs with, one per group
//                                (column), i.e. what C(p) decodes to;
// and the next encode applies the correction element by element, in the same
// single pass that forms the new p, sums the new means and packs the bits:
// e[i] = p[i] − (signbit(p[i]) ? negative : positive). A state without
// "residual_pending" (fresh, or written before it existed) has no pending
// correction: "residual" is then the true residual. errorFeedbackResidual()
// (compressor.h) materialises the true residual e = p − C(p); read that, not the buffer.
//
// 1 bit per element + 64 bits per reconstruction pair; biased; aggregation:
// gather (all-gather the packets, decode and sum).
//
// Stateless object; the CompressorState has one owner at a time.
#pragma once

#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/sign_feedback.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class OneBitCompressor final : public Compressor {
 public:
  explicit OneBitCompressor(bool perColumn) : perColumn_(perColumn) {}
  std::string spec() const override { return perColumn_ ? "onebit:col" : "onebit"; }
  Aggregation aggregation() const override { return Aggregation::kGather; }
  Theory theory() const override { return Theory::kErrorFeedback; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  // For onebit:col this assumes a flat tensor (one column); each further
  // column adds 64 bits.
  double bitsPerElement(size_t count) const override;
  // The true residual p − C(p) (see above).
  std::vector<float> errorFeedbackResidual(const CompressorState& state) const override;
  ShapeUse shapeUse() const override {
    return perColumn_ ? ShapeUse::kOneTensor : ShapeUse::kFlat;
  }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;

 private:
  bool perColumn_;
};

CompressorPtr makeOneBit(const CompressorParams& params);

}  // namespace tetrad
