// `sign`: signSGD with majority vote (Bernstein, Wang, Azizzadenesheli,
// Anandkumar, "signSGD: Compressed Optimisation for Non-Convex Problems",
// ICML 2018; "signSGD with Majority Vote is Communication Efficient and Fault
// Tolerant", ICLR 2019).
//
// A packet is the sign bit of every element plus one float scale, the mean
// magnitude ‖x‖₁/d of the local tensor; decoding one packet gives
// scale·sign(x). Aggregation is custom (majority vote): every rank
// all-gathers the 1-bit packets, counts the votes per element and takes the
// sign of the sum of signs (ties give 0). So that aggregate()'s average is
// "mean scale × majority sign", aggregateCustom() leaves the sum
// Σ_r scale_r · sign(Σ_r sign_r(x)) in the gradient.
//
// 1 bit per element (+ 32 bits of scale); biased; no error feedback (EF on a
// sign compressor is `efsign`). Const-callable.
//
// Momentum. Plain `sign` sends the sign of the gradient; the optimizer's
// momentum (--momentum) then acts on the voted, decoded gradient, after
// compression. "sign:momentum=M" is Signum (Bernstein et al. 2018, Alg. 3;
// the majority-vote paper's Signum variant): each rank keeps its own
// momentum m <- M·m + (1 − M)·g in state.buffers["momentum"] and sends
// sign(m), momentum before the sign as in the paper; run it with
// --momentum 0 (the optimizer's momentum would apply a second one).
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class SignCompressor final : public Compressor {
 public:
  // momentum 0: signSGD; in (0, 1): Signum (header comment).
  explicit SignCompressor(double momentum = 0) : momentum_(momentum) {}
  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kCustom; }
  // The vote counts every rank's packet (compressor.h).
  double modelledDecodes(int ranks) const override { return double(ranks); }
  ProtocolShape protocolShape() const override { return ProtocolShape::kPacketRing; }
  double ownMomentum() const override { return momentum_; }
  std::string theoryNote() const override {
    return "signSGD's bounds are on the ℓ1 norm (Bernstein et al. 2018)";
  }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  // Majority vote over an all-gather of 1-bit packets (header comment).
  void aggregateCustomStep(Transport& transport, std::span<float> gradient, CompressorState& state,
                           const ProtocolOptions& protocol) const override;

 private:
  // Signum: the momentum the sign is taken of (the input itself without).
  std::span<const float> signedValues(std::span<const float> input, CompressorState& state) const;

  double momentum_;
};

CompressorPtr makeSign(const CompressorParams& params);

// Shared by `sign` and `efsign`: the packet of `values` with scale `scale`,
// and its parser (returns the scale and the sign bits, validated).
Packet encodeSignPacket(PacketKind kind, std::span<const float> values, float scale);
struct SignPacket {
  float scale = 0;
  ConstBytes bits;
};
SignPacket parseSignPacket(PacketKind kind, ConstBytes packet, size_t count);
double signPacketBits(size_t count);

}  // namespace tetrad
