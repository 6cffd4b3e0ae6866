// 1-bit SGD (see onebit.h).
//
// Packet: header (flags bit 0: per column), [u64 columns if per column],
// float pairs (positive mean, negative mean) per group, then the sign bits
// (bit_packing.h layout). Cost: two passes over the tensor and its residual
// (sign bits packed in the first); n/8 + 8·groups bytes on the wire.
#include "tetrad/compress/onebit.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {
namespace {

constexpr uint16_t kPerColumnFlag = 1;

// Columns of the [shape[0], rest] view; a flat tensor is one column.
size_t columnsOf(const CompressorState& state, size_t count) {
  if (state.shape.empty() || count == 0) return 1;
  int64_t product = 1;
  for (int64_t dim : state.shape) product *= dim;
  TETRAD_CHECK(product == static_cast<int64_t>(count), InvalidArgument,
               "onebit:col: state shape has {} elements but the tensor has {} (rank {})", product,
               count, state.rank);
  return count / static_cast<size_t>(state.shape[0]);
}

struct SplitSums {
  double positive = 0;     // sum of values with a clear sign bit
  double total = 0;        // sum of all values
  uint64_t negatives = 0;  // values with a set sign bit
};

// residual = input + residual; adds the sums of the new residual to `sums`
// (but not the count of negatives, which popcount gets from the sign bits).
void addAndSplit(std::span<const float> input, std::span<float> residual, SplitSums& sums) {
  const size_t n = input.size();
  const float* x = input.data();
  float* r = residual.data();
  constexpr size_t kLanes = vmath::kLanes;
  for (size_t start = 0; start < n; start += vmath::kFlush) {
    const size_t end = std::min(n, start + vmath::kFlush);
    // Branch-free lane sums (the sign bit picks the group) so that the
    // compiler keeps them in SIMD registers.
    float pos[kLanes] = {}, all[kLanes] = {};
    size_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (size_t j = 0; j < kLanes; ++j) {
        const float v = x[i + j] + r[i + j];
        r[i + j] = v;
        const float positive = static_cast<float>(1u - (std::bit_cast<uint32_t>(v) >> 31));
        pos[j] += v * positive;
        all[j] += v;
      }
    }
    for (; i < end; ++i) {
      const float v = x[i] + r[i];
      r[i] = v;
      const float positive = static_cast<float>(1u - (std::bit_cast<uint32_t>(v) >> 31));
      pos[0] += v * positive;
      all[0] += v;
    }
    float p = 0, a = 0;
    for (size_t j = 0; j < kLanes; ++j) {
      p += pos[j];
      a += all[j];
    }
    sums.positive += p;
    sums.total += a;
  }
}

// Number of set bits (unused bits of a packed string are zero).
uint64_t countOnes(ConstBytes bytes) {
  uint64_t count = 0;
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    count += static_cast<uint64_t>(std::popcount(word));
  }
  for (; i < bytes.size(); ++i)
    count += static_cast<uint64_t>(std::popcount(static_cast<uint8_t>(bytes[i])));
  return count;
}

float meanOr0(double sum, uint64_t count) {
  return count == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(count));
}

}  // namespace

Packet OneBitCompressor::encode(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  const size_t cols = perColumn_ ? columnsOf(state, n) : 1;
  const size_t rows = n / cols;
  std::vector<float>& residual = state.buffer("residual", n);

  Packet packet;
  const size_t bitBytes = packedBytes(n, 1);
  reservePacket(packet.bytes, kPacketHeaderBytes + 8 + 8 * cols + bitBytes);
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kOneBit, n, perColumn_ ? kPerColumnFlag : 0);
  if (perColumn_) writer.put<uint64_t>(cols);
  MutableBytes means = writer.grow(8 * cols);  // filled after pass 1
  MutableBytes bits = writer.grow(bitBytes);

  // Pass 1: v = input + residual (kept in residual), and the group means.
  std::vector<float> positive(cols), negative(cols);
  float* r = residual.data();
  if (cols == 1) {  // per tensor (or one column): the vectorised path
    // Chunk by chunk: the sums, then the sign bits of v while the chunk is
    // in cache (they do not depend on the means).
    SplitSums sums;
    for (size_t start = 0; start < n; start += kPackChunk) {
      const size_t len = std::min(kPackChunk, n - start);
      addAndSplit(input.subspan(start, len), std::span<float>(r + start, len), sums);
      packSignBits(std::span<const float>(r + start, len),
                   bits.subspan(start / 8, packedBytes(len, 1)));
    }
    sums.negatives = countOnes(bits);
    positive[0] = meanOr0(sums.positive, n - sums.negatives);
    negative[0] = meanOr0(sums.total - sums.positive, sums.negatives);
  } else {
    std::vector<double> posSum(cols, 0.0), allSum(cols, 0.0);
    std::vector<uint64_t> posCount(cols, 0);
    for (size_t i = 0; i < rows; ++i) {
      const float* x = input.data() + i * cols;
      float* rowR = r + i * cols;
      for (size_t j = 0; j < cols; ++j) {
        float v = x[j] + rowR[j];
        rowR[j] = v;
        bool pos = !std::signbit(v);
        posSum[j] += pos ? v : 0.0f;
        posCount[j] += pos ? 1 : 0;
        allSum[j] += v;
      }
    }
    for (size_t j = 0; j < cols; ++j) {
      positive[j] = meanOr0(posSum[j], posCount[j]);
      negative[j] = meanOr0(allSum[j] - posSum[j], rows - posCount[j]);
    }
  }

  for (size_t j = 0; j < cols; ++j) {
    std::memcpy(means.data() + 8 * j, &positive[j], 4);
    std::memcpy(means.data() + 8 * j + 4, &negative[j], 4);
  }

  // Pass 2: residual = v - reconstruction (and the sign bits, per column).
  if (cols == 1) {
    const float pos = positive[0], neg = negative[0];
    for (size_t i = 0; i < n; ++i) r[i] -= std::signbit(r[i]) ? neg : pos;
  } else {
    packSignBits(std::span<const float>(r, n), bits);
    for (size_t i = 0; i < rows; ++i) {
      float* row = r + i * cols;
      for (size_t j = 0; j < cols; ++j) row[j] -= std::signbit(row[j]) ? negative[j] : positive[j];
    }
  }
  ++state.step;
  return packet;
}

void OneBitCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  const size_t n = output.size();
  PacketHeader header = readPacketHeader(reader, PacketKind::kOneBit, n);
  const bool perColumn = (header.flags & kPerColumnFlag) != 0;
  TETRAD_CHECK((header.flags & ~kPerColumnFlag) == 0, ProtocolError,
               "onebit packet: unknown flags {:#x}", header.flags);
  uint64_t cols = 1;
  if (perColumn) {
    cols = reader.get<uint64_t>("onebit column count");
    TETRAD_CHECK(cols >= 1 && n % cols == 0 && (n == 0 || cols <= n), ProtocolError,
                 "onebit packet: {} columns do not divide {} elements", cols, n);
  }
  TETRAD_CHECK(cols <= reader.remaining() / 8, ProtocolError,
               "onebit packet: {} columns need {} bytes of means, {} left", cols, 8 * cols,
               reader.remaining());
  ConstBytes means = reader.getBytes(8 * cols, "onebit means");
  ConstBytes bits = reader.getBytes(packedBytes(n, 1), "onebit sign bits");
  reader.expectEnd("onebit packet");
  if (cols == 1) {
    float pair[2];
    std::memcpy(pair, means.data(), 8);
    addSignValues(bits, pair[0], pair[1], output);
    return;
  }
  std::vector<float> pairs(2 * cols);
  std::memcpy(pairs.data(), means.data(), 8 * cols);
  const size_t rows = n / cols;
  for (size_t i = 0; i < rows; ++i) {
    float* row = output.data() + i * cols;
    for (size_t j = 0; j < cols; ++j) {
      row[j] += bitAt(bits, i * cols + j) ? pairs[2 * j + 1] : pairs[2 * j];
    }
  }
}

double OneBitCompressor::bitsPerElement(size_t count) const {
  if (count == 0) return 0.0;
  double bytes = kPacketHeaderBytes + (perColumn_ ? 8 : 0) + 8 + packedBytes(count, 1);
  return 8.0 * bytes / static_cast<double>(count);
}

CompressorPtr makeOneBit(const CompressorParams& params) {
  params.expectParamCount(0, 1);
  params.expectKnown(0, {"col"});
  return std::make_unique<OneBitCompressor>(params.hasFlag("col"));
}

}  // namespace tetrad
