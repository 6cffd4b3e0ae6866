// `terngrad`: TernGrad (Wen, Xu, Yan, Wu, Wang, Chen, Li, "TernGrad: Ternary
// Gradients to Reduce Communication in Distributed Deep Learning", NIPS 2017).
//
// Every element of a tensor becomes s·sign(x)·b with s = max|x| over that
// tensor and b ~ Bernoulli(|x|/s): E[decode] = x (unbiased). As in the paper,
// by default
//   - the scale is per layer: a fused bucket (CompressorState::layout) gets one
//     s per tensor ("scope=tensor"); "terngrad:scope=bucket" is the ablation
//     with one s for the whole bucket;
//   - elements are first clipped to ±c·σ, σ the standard deviation of the
//     tensor (of the bucket with scope=bucket), c = 2.5 (the paper's value;
//     "terngrad:clip=C" another, "terngrad:clip=0" none). Clipping lowers s and
//     the variance but biases the result towards the clipped tensor. A tensor
//     with σ = 0 (one element, or all elements equal) is not clipped: the
//     paper's rule would send it as zeros forever.
//
// 2 bits per element, plus per tensor a u64 element count and a float scale;
// aggregation: gather. Random bits come from CounterRng(seed, rank, step), one
// mixer round per element (mixBits, as QSGD), indexed by the element's place in
// the whole bucket: reproducible, independent across ranks. Stateless object;
// the CompressorState has one owner at a time.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

// The paper's clipping factor c (its experiments clip at 2.5σ).
constexpr double kTernGradClipSigmas = 2.5;

class TernGradCompressor final : public Compressor {
 public:
  enum class Scope { kTensor, kBucket };
  // clipSigmas <= 0: no clipping.
  TernGradCompressor(Scope scope, double clipSigmas) : scope_(scope), clipSigmas_(clipSigmas) {}
  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  // For a bucket of one tensor; bucketBitsPerElement() counts its tensors.
  double bitsPerElement(size_t count) const override;
  double bucketBitsPerElement(const CompressorState& state, size_t count) const override;
  bool unbiased() const override { return clipSigmas_ <= 0; }

  Scope scope() const { return scope_; }
  double clipSigmas() const { return clipSigmas_; }
  // Exact packet bytes for `count` elements in `tensors` non-empty tensors.
  static size_t packetBytes(size_t count, size_t tensors);

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;

 private:
  Scope scope_;
  double clipSigmas_;
};

CompressorPtr makeTernGrad(const CompressorParams& params);

}  // namespace tetrad
