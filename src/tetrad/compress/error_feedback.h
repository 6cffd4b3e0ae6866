// ErrorFeedback (",ef"): wraps any compressor C so that what C drops is not
// lost but sent later (Seide et al. 2014; Stich, Cordonnier, Jaggi,
// "Sparsified SGD with Memory", NeurIPS 2018; Karimireddy et al. 2019).
//
//   encode(x):  p = x + e;  packet = C.encode(p);  e = p − C.decode(packet)
//
// with e in state.buffers["residual"] (zero at first use). Over T steps the
// transmitted tensors plus the final residual sum exactly (up to float
// rounding) to the sum of the inputs. Packets, bits per element and the
// aggregation are those of C; decodeAdd is C's. For a custom-protocol C
// (aggregateCustom), the residual is p minus this rank's local decode of its
// own packet, and C's protocol then runs on p.
//
// C and the wrapper share one CompressorState, so one step: C's hooks run
// inside the wrapper's (through Compressor's *Of() helpers), see state.step =
// the index of this step exactly as a bare C would, and every call advances
// state.step by one, as for C alone (compressor.h).
//
// The wrapper owns C; const-callable from any thread; the CompressorState
// has one owner at a time.
#pragma once

#include "tetrad/compress/compressor.h"

namespace tetrad {

class ErrorFeedback final : public Compressor {
 public:
  explicit ErrorFeedback(CompressorPtr inner);
  std::string spec() const override { return inner_->spec() + ",ef"; }
  Aggregation aggregation() const override { return inner_->aggregation(); }
  Theory theory() const override { return Theory::kErrorFeedback; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override { return inner_->bitsPerElement(count); }
  double bucketBitsPerElement(const CompressorState& state, size_t count) const override {
    return inner_->bucketBitsPerElement(state, count);
  }
  // Biased in general, whatever C is: the residual is part of the message.
  bool unbiased() const override { return false; }
  WirePrecision summableWire() const override { return inner_->summableWire(); }
  double modelledDecodes(int ranks) const override { return inner_->modelledDecodes(ranks); }
  ShapeUse shapeUse() const override { return inner_->shapeUse(); }
  ProtocolShape protocolShape() const override { return inner_->protocolShape(); }
  std::vector<size_t> allreduceRoundFloats(const CompressorState& state,
                                           size_t count) const override {
    return inner_->allreduceRoundFloats(state, count);
  }
  bool packetSizeDependsOnData() const override { return inner_->packetSizeDependsOnData(); }
  double ownMomentum() const override { return inner_->ownMomentum(); }
  std::string theoryNote() const override { return inner_->theoryNote(); }
  bool readsHalfInput() const override { return true; }
  bool codecWorkScalesWithFirstParameter() const override {
    return inner_->codecWorkScalesWithFirstParameter();
  }

  const Compressor& inner() const { return *inner_; }

 protected:
  // Each hook runs C's hook of the same name inside this step (C sees
  // state.step = the index of this step, as a bare C would, and the step
  // advances once, when the public entry point returns).
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  // 16-bit input is added into the residual as it is read (no widened copy).
  Packet encodeHalfStep(HalfInput input, CompressorState& state) const override;
  std::vector<float> encodeSummableHalfStep(HalfInput input, CompressorState& state) const override;
  void aggregateCustomStep(Transport& transport, std::span<float> gradient, CompressorState& state,
                           const ProtocolOptions& protocol) const override;
  // Summable C: p = x + e goes through C's summable domain; the residual is
  // p minus C's expansion of this rank's own summable values.
  std::vector<float> encodeSummableStep(std::span<const float> input,
                                        CompressorState& state) const override;
  void expandSummedStep(std::span<const float> summed, const CompressorState& state, uint64_t step,
                        std::span<float> output) const override;

 private:
  // The rest of a step once the input is in the residual (e holds p = x + e).
  Packet packetFromResidual(std::vector<float>& residual, CompressorState& state) const;
  std::vector<float> summableFromResidual(std::vector<float>& residual,
                                          CompressorState& state) const;

  CompressorPtr inner_;
};

}  // namespace tetrad
