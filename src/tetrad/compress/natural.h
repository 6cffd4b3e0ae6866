// `natural`: natural compression (Horváth, Ho, Horváth, Sahu, Canini,
// Richtárik, "Natural Compression for Distributed Deep Learning", 2019).
//
// Every element is rounded stochastically to one of the two powers of two
// around it: |x| in [2^e, 2^(e+1)) becomes 2^(e+1) with probability
// (|x| − 2^e)/2^e, else 2^e, so E[decode] = x (unbiased) and the variance is
// at most |x|²/8 per element (ω = 1/8). The wire code is the sign bit and
// the 8-bit float32 exponent of the result, 9 bits per element; the mantissa
// is dropped. Subnormals round to 0 or 2^-126 the same way; values that
// round past the largest exponent, ±inf and NaN are sent as ±inf.
//
// 9 bits per element; aggregation: gather. Random bits come from
// CounterRng(seed, rank, step). Stateless object; the CompressorState has
// one owner at a time.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class NaturalCompressor final : public Compressor {
 public:
  std::string spec() const override { return "natural"; }
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;
  bool unbiased() const override { return true; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
};

CompressorPtr makeNatural(const CompressorParams& params);

}  // namespace tetrad
