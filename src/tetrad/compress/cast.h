// `fp16` and `bf16`: cast every element to a 16-bit float (IEEE binary16 or
// bfloat16), round to nearest even. 16 bits per element, deterministic,
// biased only by rounding. Aggregation is summable: decoding is exact, so
// summing decoded tensors equals summing in the compressed domain widened to
// float32; the aggregation layer (aggregate.cc) all-reduces the decoded
// float32 values, so the bytes moved by that all-reduce are float32 — the
// 16-bit packet is what a half-precision all-reduce would move (documented in
// docs/compression.md).
//
// fp16 overflows to ±inf beyond 65504 and keeps NaN; bf16 has float32's range.
// The conversion uses F16C (and AVX-512) when the build targets them, with a
// portable fallback that gives bit-identical results.
//
// Specs: "fp16", "bf16". Stateless; const-callable from any thread.
#pragma once

#include <cstdint>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

enum class HalfFormat { kFp16, kBf16 };

class HalfCompressor final : public Compressor {
 public:
  explicit HalfCompressor(HalfFormat format) : format_(format) {}
  std::string spec() const override { return format_ == HalfFormat::kFp16 ? "fp16" : "bf16"; }
  Aggregation aggregation() const override { return Aggregation::kSummable; }
  Packet encode(std::span<const float> input, CompressorState& state) const override;
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;

 private:
  HalfFormat format_;
};

CompressorPtr makeFp16(const CompressorParams& params);
CompressorPtr makeBf16(const CompressorParams& params);

// Portable scalar conversions (round to nearest even; NaN stays NaN).
uint16_t floatToHalfPortable(float value);
float halfToFloatPortable(uint16_t half);
uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t value);

// Bulk conversions, vectorised when the CPU allows; `out`/`in` may be unaligned.
void floatsToHalf(std::span<const float> in, std::byte* out);
void addHalfToFloats(const std::byte* in, std::span<float> out);
void floatsToBf16(std::span<const float> in, std::byte* out);
void addBf16ToFloats(const std::byte* in, std::span<float> out);

}  // namespace tetrad
