// `terngrad`: TernGrad (Wen, Xu, Yan, Wu, Wang, Chen, Li, "TernGrad: Ternary
// Gradients to Reduce Communication in Distributed Deep Learning", NIPS 2017).
//
// Every element becomes s·sign(x)·b with s = max|x| over the tensor and
// b ~ Bernoulli(|x|/s): E[decode] = x (unbiased). Optional gradient clipping
// ("terngrad:clip=2.5"): elements are first clipped to ±c·σ (σ the standard
// deviation of the tensor, c = 2.5 in the paper), which lowers s and the
// variance but biases the result towards the clipped tensor.
//
// 2 bits per element (+ 32 bits of scale); aggregation: gather. Random bits
// come from CounterRng(seed, rank, step), one mixer round per element
// (mixBits, as QSGD): reproducible, independent across ranks. Stateless
// object; the CompressorState has one owner at a time.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class TernGradCompressor final : public Compressor {
 public:
  // clipSigmas <= 0: no clipping.
  explicit TernGradCompressor(double clipSigmas) : clipSigmas_(clipSigmas) {}
  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;
  bool unbiased() const override { return clipSigmas_ <= 0; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;

 private:
  double clipSigmas_;
};

CompressorPtr makeTernGrad(const CompressorParams& params);

}  // namespace tetrad
