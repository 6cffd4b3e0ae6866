// PowerSGD (see powersgd.h). Communication per bucket: ring all-reduce of
// Σn·R (+ uncompressed) floats, then of Σm·R floats: 4(p-1)α +
// 2((p-1)/p)·4(Σ(n+m)R + u)·β; a bucket without a compressible matrix one
// all-reduce of its c floats. Computation: three n×m×R products (M Q, Mᵀ P,
// P Qᵀ) and a Gram-Schmidt of O(n R²) per matrix.
#include "tetrad/compress/powersgd.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/packet_alloc.h"

namespace tetrad {
namespace {

constexpr int kMaxRank = 1024;
constexpr uint64_t kQSalt = 0x706f77657273676dull;  // "powersgm"
constexpr double kDependentColumn = 1e-5;           // relative norm left after projection

constexpr uint16_t kBatchedFlag = 1;

// The rank a rows×cols matrix is compressed with (0: it travels as it is).
size_t compressedRank(size_t rows, size_t cols, int maxRank) {
  const size_t rank = std::min({static_cast<size_t>(maxRank), rows, cols});
  return (rows + cols) * rank < rows * cols ? rank : 0;
}

// Q is stored transposed (qt: r×cols, row c = column c of Q) so that every
// kernel below runs along the long dimension `cols` and vectorises.

// Σ_j a[j]·b[j] with kLanes independent float partial sums (vectorisable
// without reassociating a single accumulator).
float dot(const float* a, const float* b, size_t n) {
  constexpr size_t kLanes = 16;
  float lanes[kLanes] = {};
  size_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (size_t l = 0; l < kLanes; ++l) lanes[l] += a[j + l] * b[j + l];
  }
  float total = 0;
  for (; j < n; ++j) total += a[j] * b[j];
  for (size_t l = 0; l < kLanes; ++l) total += lanes[l];
  return total;
}

// y[j] += alpha·x[j].
void axpy(float alpha, const float* x, float* y, size_t n) {
  for (size_t j = 0; j < n; ++j) y[j] += alpha * x[j];
}

// p = m q  (rows×cols times cols×r; p row-major rows×r).
void multiply(const float* m, const float* qt, float* p, size_t rows, size_t cols, size_t r) {
  for (size_t i = 0; i < rows; ++i) {
    for (size_t c = 0; c < r; ++c) p[i * r + c] = dot(m + i * cols, qt + c * cols, cols);
  }
}

// qᵀ = (mᵀ p)ᵀ = pᵀ m  (r×cols).
void multiplyTransposed(const float* m, const float* p, float* qt, size_t rows, size_t cols,
                        size_t r) {
  std::fill(qt, qt + r * cols, 0.0f);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t c = 0; c < r; ++c) axpy(p[i * r + c], m + i * cols, qt + c * cols, cols);
  }
}

// out += sign · p qᵀ.
void addOuter(const float* p, const float* qt, float* out, size_t rows, size_t cols, size_t r,
              float sign) {
  for (size_t i = 0; i < rows; ++i) {
    for (size_t c = 0; c < r; ++c) axpy(sign * p[i * r + c], qt + c * cols, out + i * cols, cols);
  }
}

// The warm-start Qᵀ of every matrix, one after another (each r×cols): kept
// from the last step, or N(0,1) from the seed.
std::vector<float>& warmQ(CompressorState& state, size_t size) {
  auto it = state.buffers.find("q");
  if (it != state.buffers.end() && it->second.size() == size) return it->second;
  std::vector<float>& q = state.buffer("q", size);
  uint64_t counter = splitMix64(state.seed ^ kQSalt);
  for (size_t i = 0; i < size; i += 2) {
    const double u1 = (static_cast<double>(splitMix64(counter++) >> 11) + 1.0) * 0x1p-53;
    const double u2 = static_cast<double>(splitMix64(counter++) >> 11) * 0x1p-53;
    const double radius = std::sqrt(-2.0 * std::log(u1));
    q[i] = static_cast<float>(radius * std::cos(2 * M_PI * u2));
    if (i + 1 < size) q[i + 1] = static_cast<float>(radius * std::sin(2 * M_PI * u2));
  }
  return q;
}

// The matrices M = residual (+ the gradient just added) of a plan: per
// tensor they are ranges of the vector-sized residual; batched, the
// zero-padded s×s residual.
size_t residualSize(const PowerSgdPlan& plan, size_t count) {
  if (!plan.padded) return count;
  const PowerSgdMatrix& m = plan.matrices.front();
  return m.rows * m.cols;
}

// residual += input on every compressed range.
void accumulate(const PowerSgdPlan& plan, std::span<const float> input,
                std::vector<float>& residual) {
  if (plan.padded) {
    for (size_t i = 0; i < input.size(); ++i) residual[i] += input[i];
    return;
  }
  for (const PowerSgdMatrix& m : plan.matrices) {
    const size_t n = m.rows * m.cols;
    for (size_t i = 0; i < n; ++i) residual[m.offset + i] += input[m.offset + i];
  }
}

// Where matrix k's M starts in the residual (batched: at 0).
float* matrixOf(const PowerSgdPlan& plan, std::vector<float>& residual, const PowerSgdMatrix& m) {
  return residual.data() + (plan.padded ? 0 : m.offset);
}

}  // namespace

void orthogonalizeColumns(std::span<float> p, size_t rows, size_t columns) {
  TETRAD_CHECK(p.size() == rows * columns, InvalidArgument,
               "orthogonalizeColumns: {} values for a {}x{} matrix", p.size(), rows, columns);
  for (size_t c = 0; c < columns; ++c) {
    double original = 0;
    for (size_t i = 0; i < rows; ++i) original += double{p[i * columns + c]} * p[i * columns + c];
    for (size_t prev = 0; prev < c; ++prev) {
      double dot = 0;
      for (size_t i = 0; i < rows; ++i) dot += double{p[i * columns + prev]} * p[i * columns + c];
      for (size_t i = 0; i < rows; ++i) {
        p[i * columns + c] -= static_cast<float>(dot) * p[i * columns + prev];
      }
    }
    double norm = 0;
    for (size_t i = 0; i < rows; ++i) norm += double{p[i * columns + c]} * p[i * columns + c];
    norm = std::sqrt(norm);
    const bool dependent = norm == 0 || norm <= kDependentColumn * std::sqrt(original);
    const float scale = dependent ? 0.0f : static_cast<float>(1.0 / norm);
    for (size_t i = 0; i < rows; ++i) p[i * columns + c] *= scale;
  }
}

PowerSgdPlan powerSgdPlan(const CompressorState& state, size_t count, int rank, bool batched) {
  PowerSgdPlan plan;
  if (batched) {
    // DDP's batched hook: the whole vector as one zero-padded square.
    const auto side = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(count))));
    const size_t r = std::min(static_cast<size_t>(rank), side);
    if (count > 0 && 2 * side * r < count) {
      plan.padded = true;
      plan.matrices.push_back({0, side, side, r});
    } else if (count > 0) {
      plan.uncompressed.push_back({0, count});
    }
  } else {
    for (const TensorPart& part : tensorsOf(state, count)) {
      if (part.count == 0) continue;
      const size_t rows = part.shape.size() >= 2 ? static_cast<size_t>(part.shape[0]) : 0;
      const size_t r = rows > 0 ? compressedRank(rows, part.count / rows, rank) : 0;
      if (r > 0) {
        plan.matrices.push_back({part.offset, rows, part.count / rows, r});
      } else if (!plan.uncompressed.empty() &&
                 plan.uncompressed.back().first + plan.uncompressed.back().second == part.offset) {
        plan.uncompressed.back().second += part.count;  // neighbours: one range
      } else {
        plan.uncompressed.push_back({part.offset, part.count});
      }
    }
  }
  for (const PowerSgdMatrix& m : plan.matrices) {
    plan.pFloats += m.rows * m.rank;
    plan.qFloats += m.cols * m.rank;
  }
  for (const auto& range : plan.uncompressed) plan.rawFloats += range.second;
  return plan;
}

PowerSgd::PowerSgd(int rank, bool batched) : rank_(rank), batched_(batched) {
  TETRAD_CHECK(rank >= 1 && rank <= kMaxRank, InvalidArgument,
               "powersgd rank must be in [1, {}], got {}", kMaxRank, rank);
}

std::string PowerSgd::spec() const {
  return fmt::format("powersgd:{}{}", rank_, batched_ ? ":batched" : "");
}

Packet PowerSgd::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t count = input.size();
  const PowerSgdPlan plan = powerSgdPlan(state, count, rank_, batched_);
  Packet packet;
  const size_t parts = plan.matrices.size() + plan.uncompressed.size();
  reservePacket(
      packet.bytes,
      kPacketHeaderBytes + 4 + 12 * parts + 4 * (plan.pFloats + plan.qFloats + plan.rawFloats),
      state);
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kPowerSgd, count, plan.padded ? kBatchedFlag : 0);
  writer.put<uint32_t>(static_cast<uint32_t>(parts));
  // Parts in vector order: merge the matrices and the uncompressed ranges.
  struct Part {
    size_t offset;
    const PowerSgdMatrix* matrix;  // null: uncompressed
    size_t count;
  };
  std::vector<Part> ordered;
  for (const PowerSgdMatrix& m : plan.matrices) ordered.push_back({m.offset, &m, 0});
  for (const auto& [offset, n] : plan.uncompressed) ordered.push_back({offset, nullptr, n});
  std::sort(ordered.begin(), ordered.end(),
            [](const Part& a, const Part& b) { return a.offset < b.offset; });
  for (const Part& part : ordered) {
    writer.put<uint32_t>(static_cast<uint32_t>(part.matrix ? part.matrix->rows : part.count));
    writer.put<uint32_t>(static_cast<uint32_t>(part.matrix ? part.matrix->cols : 1));
    writer.put<uint32_t>(static_cast<uint32_t>(part.matrix ? part.matrix->rank : 0));
  }
  std::vector<float>* residual = nullptr;
  std::vector<float>* q = nullptr;
  if (!plan.matrices.empty()) {
    residual = &state.buffer("residual", residualSize(plan, count));
    accumulate(plan, input, *residual);
    q = &warmQ(state, plan.qFloats);
  }
  size_t qAt = 0;  // matrices lie in vector order, and so do their Q factors
  for (const Part& part : ordered) {
    if (!part.matrix) {
      writer.putBytes(asBytes(input.subspan(part.offset, part.count)));
      continue;
    }
    const PowerSgdMatrix& m = *part.matrix;
    float* matrix = matrixOf(plan, *residual, m);
    float* qt = q->data() + qAt;
    qAt += m.cols * m.rank;
    std::vector<float> p(m.rows * m.rank);
    multiply(matrix, qt, p.data(), m.rows, m.cols, m.rank);
    orthogonalizeColumns(p, m.rows, m.rank);
    multiplyTransposed(matrix, p.data(), qt, m.rows, m.cols, m.rank);
    addOuter(p.data(), qt, matrix, m.rows, m.cols, m.rank, -1.0f);
    writer.putBytes(asBytes(std::span<const float>(p)));
    writer.putBytes(asBytes(std::span<const float>(qt, m.cols * m.rank)));
  }
  return packet;
}

void PowerSgd::decodeAdd(ConstBytes packet, std::span<float> output) const {
  const size_t count = output.size();
  ByteReader reader(packet);
  const PacketHeader header = readPacketHeader(reader, PacketKind::kPowerSgd, count);
  TETRAD_CHECK((header.flags & ~kBatchedFlag) == 0, ProtocolError,
               "powersgd packet: unknown flags {:#x}", header.flags);
  const bool padded = (header.flags & kBatchedFlag) != 0;
  const uint32_t parts = reader.get<uint32_t>("powersgd part count");
  TETRAD_CHECK(parts <= reader.remaining() / 12 && (!padded || parts == 1), ProtocolError,
               "powersgd packet: {} parts with {} bytes left{}", parts, reader.remaining(),
               padded ? " (a batched packet has one)" : "");
  struct Part {
    uint64_t rows, cols, rank;
  };
  std::vector<Part> shapes(parts);
  uint64_t covered = 0;
  for (Part& part : shapes) {
    part.rows = reader.get<uint32_t>("powersgd rows");
    part.cols = reader.get<uint32_t>("powersgd columns");
    part.rank = reader.get<uint32_t>("powersgd rank");
    const uint64_t elements = part.rows * part.cols;
    // A batched square may pad the vector by fewer than rows + cols zeros.
    const uint64_t slack = padded ? part.rows + part.cols : 0;
    TETRAD_CHECK(part.rank <= std::min<uint64_t>({part.rows, part.cols, kMaxRank}) &&
                     (!padded || part.rank >= 1) && elements <= count + slack - covered,
                 ProtocolError, "powersgd packet: {}x{} part of rank {} after {} of {} elements",
                 part.rows, part.cols, part.rank, covered, count);
    covered += elements;
  }
  TETRAD_CHECK(padded ? covered >= count : covered == count, ProtocolError,
               "powersgd packet: parts cover {} elements of a {}-element tensor", covered, count);
  size_t offset = 0;
  std::vector<float> values;
  for (const Part& part : shapes) {
    const size_t elements = size_t(part.rows * part.cols);
    const size_t floats = part.rank == 0 ? elements : size_t((part.rows + part.cols) * part.rank);
    TETRAD_CHECK(floats <= reader.remaining() / sizeof(float), ProtocolError,
                 "powersgd packet: a part of {} floats with {} bytes left", floats,
                 reader.remaining());
    ConstBytes payload = reader.getBytes(floats * sizeof(float), "powersgd payload");
    values.resize(floats);
    if (floats > 0) std::memcpy(values.data(), payload.data(), payload.size());
    if (part.rank == 0) {
      for (size_t i = 0; i < elements; ++i) output[offset + i] += values[i];
    } else if (!padded) {
      addOuter(values.data(), values.data() + part.rows * part.rank, output.data() + offset,
               part.rows, part.cols, part.rank, 1.0f);
    } else {
      std::vector<float> square(elements, 0.0f);
      addOuter(values.data(), values.data() + part.rows * part.rank, square.data(), part.rows,
               part.cols, part.rank, 1.0f);
      for (size_t i = 0; i < count; ++i) output[i] += square[i];
    }
    offset += elements;
  }
  reader.expectEnd("powersgd packet");
}

double PowerSgd::bitsPerElement(size_t count) const {
  if (count == 0) return 0;
  const double side = std::floor(std::sqrt(static_cast<double>(count)));
  const double r = std::min<double>(rank_, side);
  const double floats = 2 * side * r < count ? 2 * side * r : static_cast<double>(count);
  return (8.0 * (kPacketHeaderBytes + 4 + 12) + 32.0 * floats) / static_cast<double>(count);
}

namespace {

// The sum of every rank's decoded tensor from the summed factors: P Qᵀ per
// matrix, the summed uncompressed values as they are.
void reconstruct(const PowerSgdPlan& plan, const std::vector<float>& first,
                 const std::vector<float>& q, std::span<float> gradient) {
  size_t p = 0, qAt = 0;
  if (plan.padded) {
    const PowerSgdMatrix& m = plan.matrices.front();
    std::vector<float> square(m.rows * m.cols, 0.0f);
    addOuter(first.data(), q.data(), square.data(), m.rows, m.cols, m.rank, 1.0f);
    std::copy_n(square.begin(), gradient.size(), gradient.begin());
    return;
  }
  for (const PowerSgdMatrix& m : plan.matrices) {
    float* out = gradient.data() + m.offset;
    std::fill(out, out + m.rows * m.cols, 0.0f);
    addOuter(first.data() + p, q.data() + qAt, out, m.rows, m.cols, m.rank, 1.0f);
    p += m.rows * m.rank;
    qAt += m.cols * m.rank;
  }
  for (const auto& [offset, n] : plan.uncompressed) {
    std::copy_n(first.begin() + p, n, gradient.begin() + offset);
    p += n;
  }
}

}  // namespace

void PowerSgd::aggregateCustomStep(Transport& transport, std::span<float> gradient,
                                   CompressorState& state, const ProtocolOptions& protocol) const {
  const size_t count = gradient.size();
  const PowerSgdPlan plan = powerSgdPlan(state, count, rank_, batched_);
  AllreduceOptions options{protocol.allreduce, ReduceOp::kSum, protocol.tag,
                           WirePrecision::kFloat32, protocol.selector};
  if (plan.matrices.empty()) {
    allreduce(transport, gradient, options);
    return;
  }
  std::vector<float>& residual = state.buffer("residual", residualSize(plan, count));
  std::vector<float>& q = warmQ(state, plan.qFloats);
  // First all-reduce: every matrix's P = M Q, then the uncompressed values.
  std::vector<float> first(plan.pFloats + plan.rawFloats);
  size_t p = 0, qAt = 0;
  timeCodec(protocol.codec, [&] {
    accumulate(plan, gradient, residual);
    for (const PowerSgdMatrix& m : plan.matrices) {
      multiply(matrixOf(plan, residual, m), q.data() + qAt, first.data() + p, m.rows, m.cols,
               m.rank);
      p += m.rows * m.rank;
      qAt += m.cols * m.rank;
    }
    for (const auto& [offset, n] : plan.uncompressed) {
      std::copy_n(gradient.begin() + offset, n, first.begin() + p);
      p += n;
    }
  });
  allreduce(transport, first, options);
  // Orthogonalise each P, then Q = Mᵀ P and the residual M − P Qᵀ.
  p = qAt = 0;
  timeCodec(protocol.codec, [&] {
    for (const PowerSgdMatrix& m : plan.matrices) {
      float* matrix = matrixOf(plan, residual, m);
      std::span<float> pm(first.data() + p, m.rows * m.rank);
      orthogonalizeColumns(pm, m.rows, m.rank);
      multiplyTransposed(matrix, pm.data(), q.data() + qAt, m.rows, m.cols, m.rank);
      addOuter(pm.data(), q.data() + qAt, matrix, m.rows, m.cols, m.rank, -1.0f);
      p += m.rows * m.rank;
      qAt += m.cols * m.rank;
    }
  });
  options.tag = protocol.tag + kCollectiveTagSpan;
  allreduce(transport, q, options);
  // The sum of every rank's decoded tensor: P Qᵀ per matrix, the summed
  // uncompressed values as they are.
  timeCodec(protocol.codec, [&] { reconstruct(plan, first, q, gradient); });
}

CompressorPtr makePowerSgd(const CompressorParams& params) {
  params.expectParamCount(1, 2);
  params.expectKnown(1, {"batched"});
  return std::make_unique<PowerSgd>(static_cast<int>(params.integer(0, "rank", 1, kMaxRank)),
                                    params.hasFlag("batched", 1));
}

}  // namespace tetrad
