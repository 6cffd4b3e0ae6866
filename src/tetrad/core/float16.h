// 16-bit floats: conversions between float32 and IEEE binary16 ("fp16",
// "half") or bfloat16 ("bf16"), scalar and bulk.
//
// Every float32 -> 16-bit conversion rounds to nearest, ties to even. fp16
// overflows to ±inf beyond 65504 (values from 65520 up) and has subnormals
// down to 2^-24; bf16 keeps float32's exponent range. NaN stays NaN (quiet).
// 16-bit -> float32 conversions are exact. The bulk functions use F16C (and
// AVX-512) when the build targets them, with a portable fallback that gives
// bit-identical results (tested on every half value); their byte buffers hold
// 2 bytes per element in the machine's (little-endian) order and may be
// unaligned.
//
// Users: the fp16/bf16 compressors (compress/cast.h) and the 16-bit wire of
// the all-reduce (collectives/collective_options.h: WirePrecision).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tetrad {

// Portable scalar conversions.
uint16_t floatToHalfPortable(float value);
float halfToFloatPortable(uint16_t half);
uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t value);

// Bulk conversions: `out` / `in` hold 2 · (number of floats) bytes.
void floatsToHalf(std::span<const float> in, std::byte* out);     // out = fp16(in)
void halfToFloats(const std::byte* in, std::span<float> out);     // out = in
void addHalfToFloats(const std::byte* in, std::span<float> out);  // out += in
void floatsToBf16(std::span<const float> in, std::byte* out);     // out = bf16(in)
void bf16ToFloats(const std::byte* in, std::span<float> out);     // out = in
void addBf16ToFloats(const std::byte* in, std::span<float> out);  // out += in

// Either 16-bit format, for code that takes both (mixed-precision buckets,
// compress/compressor.h's HalfInput, the 16-bit compressors).
enum class HalfFormat { kFp16, kBf16 };
void widenHalf(HalfFormat format, const std::byte* in, std::span<float> out);       // out = in
void addWidenedHalf(HalfFormat format, const std::byte* in, std::span<float> out);  // out += in
// True when none of the `count` values is inf or NaN (exponent field all ones).
bool halfValuesFinite(HalfFormat format, const std::byte* in, size_t count);

}  // namespace tetrad
