// `fp16` and `bf16`: cast every element to a 16-bit float (IEEE binary16 or
// bfloat16), round to nearest even. 16 bits per element, deterministic,
// biased only by rounding. Aggregation is summable in the compressed domain:
// summableWire() is WirePrecision::kFloat16 / kBFloat16, so aggregate()
// all-reduces with 2-byte values in every message (each hop converts the
// block it forwards, the receiver accumulates in float32; see
// collectives/allreduce.h). The ring therefore moves 2(p-1)/p·n·2 bytes per
// rank instead of ·4, and the result carries the 16-bit rounding of the
// partial sums (docs/compression.md).
//
// fp16 overflows to ±inf beyond 65504 and keeps NaN; bf16 has float32's range.
// The conversions are those of core/float16.h (F16C / AVX-512 when the build
// targets them, bit-identical portable fallback).
//
// Specs: "fp16", "bf16". Stateless; const-callable from any thread.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"
#include "tetrad/core/float16.h"

namespace tetrad {

class HalfCompressor final : public Compressor {
 public:
  explicit HalfCompressor(HalfFormat format) : format_(format) {}
  std::string spec() const override { return format_ == HalfFormat::kFp16 ? "fp16" : "bf16"; }
  Aggregation aggregation() const override { return Aggregation::kSummable; }
  Theory theory() const override { return Theory::kExact; }
  bool isPlainCast() const override { return true; }
  WirePrecision summableWire() const override;
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;

 private:
  HalfFormat format_;
};

CompressorPtr makeFp16(const CompressorParams& params);
CompressorPtr makeBf16(const CompressorParams& params);

}  // namespace tetrad
