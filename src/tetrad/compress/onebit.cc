// 1-bit SGD (see onebit.h).
//
// Packet: header (flags bit 0: per column), [u64 columns if per column],
// float pairs (positive mean, negative mean) per group, then the sign bits
// (bit_packing.h layout). Cost: two passes over the tensor and its residual;
// n/8 + 8·groups bytes on the wire.
#include "tetrad/compress/onebit.h"

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
  double positive = 0;  // sum of values with a clear sign bit
  double total = 0;     // sum of all values
  uint64_t positives = 0;
};

// residual = input + residual, and the sums of the new residual.
SplitSums addAndSplit(std::span<const float> input, std::span<float> residual) {
  const size_t n = input.size();
  const float* x = input.data();
  float* r = residual.data();
  SplitSums sums;
  constexpr size_t kLanes = vmath::kLanes;
  for (size_t start = 0; start < n; start += vmath::kFlush) {
    const size_t end = std::min(n, start + vmath::kFlush);
    // Branch-free lane sums (the sign bit picks the group) so that the
    // compiler keeps them in SIMD registers.
    float pos[kLanes] = {}, all[kLanes] = {}, npos[kLanes] = {};
    size_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (size_t j = 0; j < kLanes; ++j) {
        const float v = x[i + j] + r[i + j];
        r[i + j] = v;
        const float positive = static_cast<float>(1u - (std::bit_cast<uint32_t>(v) >> 31));
        pos[j] += v * positive;
        npos[j] += positive;
        all[j] += v;
      }
    }
    for (; i < end; ++i) {
      const float v = x[i] + r[i];
      r[i] = v;
      const float positive = static_cast<float>(1u - (std::bit_cast<uint32_t>(v) >> 31));
      pos[0] += v * positive;
      npos[0] += positive;
      all[0] += v;
    }
    float p = 0, a = 0;
    for (size_t j = 0; j < kLanes; ++j) {
      p += pos[j];
      a += all[j];
      sums.positives += static_cast<uint64_t>(npos[j]);
    }
    sums.positive += p;
    sums.total += a;
  }
  return sums;
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

  // Pass 1: v = input + residual (kept in residual), and the group means.
  std::vector<float> positive(cols), negative(cols);
  if (cols == 1) {  // per tensor (or one column): the vectorised path
    SplitSums sums = addAndSplit(input, residual);
    positive[0] = meanOr0(sums.positive, sums.positives);
    negative[0] = meanOr0(sums.total - sums.positive, n - sums.positives);
  } else {
    std::vector<double> posSum(cols, 0.0), allSum(cols, 0.0);
    std::vector<uint64_t> posCount(cols, 0);
    for (size_t i = 0; i < rows; ++i) {
      const float* x = input.data() + i * cols;
      float* r = residual.data() + i * cols;
      for (size_t j = 0; j < cols; ++j) {
        float v = x[j] + r[j];
        r[j] = v;
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

  Packet packet;
  const size_t bitBytes = packedBytes(n, 1);
  reservePacket(packet.bytes, kPacketHeaderBytes + 8 + 8 * cols + bitBytes);
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kOneBit, n, perColumn_ ? kPerColumnFlag : 0);
  if (perColumn_) writer.put<uint64_t>(cols);
  for (size_t j = 0; j < cols; ++j) {
    writer.put<float>(positive[j]);
    writer.put<float>(negative[j]);
  }
  MutableBytes bits = writer.grow(bitBytes);

  // Pass 2: sign bits of v; residual = v - reconstruction.
  float* r = residual.data();
  if (cols == 1) {
    const float pos = positive[0], neg = negative[0];
    for (size_t start = 0; start < n; start += kPackChunk) {
      const size_t len = std::min(kPackChunk, n - start);
      packSignBits(std::span<const float>(r + start, len),
                   bits.subspan(start / 8, packedBytes(len, 1)));
      for (size_t i = start; i < start + len; ++i) r[i] -= std::signbit(r[i]) ? neg : pos;
    }
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
