// `efsign`: EF-signSGD (Karimireddy, Rebjock, Stich, Jaggi, "Error Feedback
// Fixes SignSGD and other Gradient Compression Schemes", ICML 2019).
//
// With p = x + e (e: the error-feedback residual), the packet is
// C(p) = (‖p‖₁/d)·sign(p): the sign bits plus one float scale. The new
// residual is e = p − C(p), kept deferred as in onebit (onebit.h): the state
// stores the uncorrected p in buffers["residual"] and the pair (scale,
// −scale) in buffers["residual_pending"]; the next encode subtracts C(p)
// on the fly. errorFeedbackResidual() gives the true residual. This scaled sign is a
// δ-contraction with δ = ‖p‖₁²/(d·‖p‖₂²) (Lemma 8 of the paper): ‖p − C(p)‖² = (1 − δ)‖p‖². Error
// feedback is built in, so ",ef" is refused.
//
// 1 bit per element (+ 32 bits of scale); biased; aggregation: gather.
// Stateless object; the CompressorState has one owner at a time.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class EfSignCompressor final : public Compressor {
 public:
  std::string spec() const override { return "efsign"; }
  Aggregation aggregation() const override { return Aggregation::kGather; }
  Theory theory() const override { return Theory::kErrorFeedback; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;
  // The true residual p − C(p) (the state keeps it deferred; onebit.h).
  std::vector<float> errorFeedbackResidual(const CompressorState& state) const override;

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
};

CompressorPtr makeEfSign(const CompressorParams& params);

}  // namespace tetrad
