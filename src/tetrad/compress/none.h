// `none`: the identity compressor. The packet is the raw float32 tensor;
// aggregation is a plain all-reduce (summable). The baseline every other
// compressor is measured against.
//
// Spec: "none". Stateless; const-callable from any thread.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class NoneCompressor final : public Compressor {
 public:
  std::string spec() const override { return "none"; }
  Aggregation aggregation() const override { return Aggregation::kSummable; }
  Theory theory() const override { return Theory::kExact; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;
  bool unbiased() const override { return true; }
  bool isIdentity() const override { return true; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
};

CompressorPtr makeNone(const CompressorParams& params);

}  // namespace tetrad
