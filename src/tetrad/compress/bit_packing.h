// Bit packing for compressed payloads: 1-bit signs and b-bit unsigned codes
// (b in 1..16).
//
// Layout: value i occupies bits [i*b, (i+1)*b) of the payload, least
// significant bit first, bytes in little-endian order (equivalently: 64-bit
// little-endian words, LSB first). A payload of n values is exactly
// packedBytes(n, b) = ceil(n*b/8) bytes; unused high bits of the last byte are
// written as zero and ignored when read. Because kPackChunk * b is a multiple
// of 8 for every b, a stream may be packed chunk by chunk at byte offsets
// chunk * packedBytes(kPackChunk, b).
//
// Unpacking checks the payload size and throws ProtocolError on a mismatch;
// it never reads outside the given span. Packing takes sizes from the caller
// and throws InvalidArgument when they disagree (a programming error).
//
// Stateless free functions; thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "tetrad/core/bytes.h"

namespace tetrad {

constexpr size_t kPackChunk = 4096;

constexpr size_t packedBytes(size_t count, unsigned bits) {
  return (count * bits + 7) / 8;
}

// Packs codes[i] & (2^bits - 1) into `out` (size packedBytes(codes.size(), bits)).
void packCodes(std::span<const uint16_t> codes, unsigned bits, MutableBytes out);
// Unpacks codes.size() codes of `bits` bits; `in` must be exactly
// packedBytes(codes.size(), bits) bytes (ProtocolError otherwise).
void unpackCodes(ConstBytes in, unsigned bits, std::span<uint16_t> codes);

// Streams n codes of `bits` bits into `payload` (packedBytes(n, bits) bytes)
// kPackChunk at a time through a stack buffer: fill(block, start, codes)
// writes the codes of elements [start, start + codes.size()), block being
// the chunk's index (e.g. for a per-block RNG key).
template <typename Fill>
void packCodesByChunk(MutableBytes payload, size_t n, unsigned bits, Fill&& fill) {
  uint16_t codes[kPackChunk];
  for (size_t start = 0, block = 0; start < n; start += kPackChunk, ++block) {
    const std::span<uint16_t> chunk(codes, std::min(kPackChunk, n - start));
    fill(block, start, chunk);
    packCodes(
        chunk, bits,
        payload.subspan(block * packedBytes(kPackChunk, bits), packedBytes(chunk.size(), bits)));
  }
}

// The reverse: use(start, codes) receives the codes of elements
// [start, start + codes.size()). `payload` must be packedBytes(n, bits) bytes.
template <typename Use>
void unpackCodesByChunk(ConstBytes payload, size_t n, unsigned bits, Use&& use) {
  uint16_t codes[kPackChunk];
  for (size_t start = 0, block = 0; start < n; start += kPackChunk, ++block) {
    const std::span<uint16_t> chunk(codes, std::min(kPackChunk, n - start));
    unpackCodes(
        payload.subspan(block * packedBytes(kPackChunk, bits), packedBytes(chunk.size(), bits)),
        bits, chunk);
    use(start, std::span<const uint16_t>(chunk));
  }
}

// Bit i = sign bit of values[i] (1 for negative numbers and -0.0).
// `out` has packedBytes(values.size(), 1) bytes.
void packSignBits(std::span<const float> values, MutableBytes out);
// out[i] += bit i ? negative : positive. `in` must be exactly
// packedBytes(out.size(), 1) bytes (ProtocolError otherwise).
void addSignValues(ConstBytes in, float positive, float negative, std::span<float> out);

// Bit i of a packed bit string, bounds-checked by the caller.
inline bool bitAt(ConstBytes in, size_t i) {
  return (static_cast<unsigned>(in[i >> 3]) >> (i & 7)) & 1u;
}

}  // namespace tetrad
