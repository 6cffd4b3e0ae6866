// 1-bit SGD (see onebit.h).
//
// Packet: header (flags bit 0: per column), [u64 columns if per column],
// float pairs (positive mean, negative mean) per group, then the sign bits
// (bit_packing.h layout). Cost: one pass over the tensor and the stored p
// (read x and p, write p; the sign bits are packed chunk by chunk in the same
// pass, the previous packet's correction is applied on the fly); n/8 +
// 8·groups bytes on the wire.
#include "tetrad/compress/onebit.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/efsign.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/sign_feedback.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {
namespace {

constexpr uint16_t kPerColumnFlag = 1;

// Columns of a tensor of `shape` viewed as [shape[0], rest]; flat: one.
size_t columnsOfShape(const std::vector<int64_t>& shape, size_t count, int rank) {
  if (shape.empty() || count == 0) return 1;
  int64_t product = 1;
  for (int64_t dim : shape) product *= dim;
  TETRAD_CHECK(product == static_cast<int64_t>(count), InvalidArgument,
               "onebit:col: state shape has {} elements but the tensor has {} (rank {})", product,
               count, rank);
  return count / static_cast<size_t>(shape[0]);
}

// Columns of the [shape[0], rest] view; a flat tensor is one column.
size_t columnsOf(const CompressorState& state, size_t count) {
  TETRAD_CHECK(state.layout.size() <= 1, Unsupported,
               "onebit:col quantizes the columns of one tensor, and this bucket fuses {} tensors: "
               "use --bucket-size 0 (one bucket per tensor) or plain onebit (rank {})",
               state.layout.size(), state.rank);
  if (state.layout.size() == 1) return columnsOfShape(state.layout[0], count, state.rank);
  return columnsOfShape(state.shape, count, state.rank);
}

}  // namespace

Packet OneBitCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  const size_t cols = perColumn_ ? columnsOf(state, n) : 1;
  const size_t rows = n / cols;

  Packet packet;
  const size_t bitBytes = packedBytes(n, 1);
  const size_t columnBytes = perColumn_ ? sizeof(uint64_t) : 0;
  // Every byte after the header is written below (startPacket: no zero-fill).
  MutableBytes body =
      startPacket(packet.bytes, kPacketHeaderBytes + columnBytes + 8 * cols + bitBytes,
                  PacketKind::kOneBit, n, perColumn_ ? kPerColumnFlag : 0, state);
  if (perColumn_) {
    const uint64_t columns = cols;
    std::memcpy(body.data(), &columns, sizeof(uint64_t));
  }
  MutableBytes means = body.subspan(columnBytes, 8 * cols);  // filled after the pass
  MutableBytes bits = body.subspan(columnBytes + 8 * cols);

  if (cols == 1) {  // per tensor (or one column): the vectorised path
    encodeSignWithFeedback(input, state, false, means, bits);
    return packet;
  }

  // Per column, one pass row block by row block: new p = x + (old p −
  // sent(old p)) with the previous pair of each column, the column sums, and
  // the sign bits of the finished rows while they are in cache.
  std::vector<float>& p = state.buffer(kResidualBuffer, n);
  const std::vector<float> old = pendingPairs(state, cols, "onebit:col");
  std::vector<float> oldPos(cols), oldNeg(cols);
  for (size_t j = 0; j < cols; ++j) {
    oldPos[j] = old[2 * j];
    oldNeg[j] = old[2 * j + 1];
  }
  std::vector<double> posSum(cols, 0.0), allSum(cols, 0.0);
  std::vector<uint64_t> posCount(cols, 0);
  float* r = p.data();
  const size_t blockRows = std::max<size_t>(1, kPackChunk / cols);
  size_t packed = 0;  // elements whose sign bits are written (a multiple of 8, or n)
  for (size_t row0 = 0; row0 < rows; row0 += blockRows) {
    const size_t rowEnd = std::min(rows, row0 + blockRows);
    for (size_t i = row0; i < rowEnd; ++i) {
      const float* x = input.data() + i * cols;
      float* rowR = r + i * cols;
      for (size_t j = 0; j < cols; ++j) {
        const float prev = rowR[j];
        const float v = x[j] + (prev - vmath::sentValue(prev, oldPos[j], oldNeg[j]));
        rowR[j] = v;
        const bool pos = !std::signbit(v);
        posSum[j] += pos ? v : 0.0f;
        posCount[j] += pos ? 1 : 0;
        allSum[j] += v;
      }
    }
    const size_t done = rowEnd * cols;
    const size_t upTo = done == n ? n : done / 8 * 8;
    if (upTo > packed) {
      packSignBits(std::span<const float>(r + packed, upTo - packed),
                   bits.subspan(packed / 8, packedBytes(upTo - packed, 1)));
      packed = upTo;
    }
  }
  std::vector<float>& pending = state.buffer(kResidualPendingBuffer, 2 * cols);
  for (size_t j = 0; j < cols; ++j) {
    pending[2 * j] = meanOr0(posSum[j], posCount[j]);
    pending[2 * j + 1] = meanOr0(allSum[j] - posSum[j], rows - posCount[j]);
  }
  std::memcpy(means.data(), pending.data(), 8 * cols);
  return packet;
}

std::vector<float> OneBitCompressor::errorFeedbackResidual(const CompressorState& state) const {
  return deferredResidual(*this, state);
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
