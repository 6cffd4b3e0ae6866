// PowerSGD (see powersgd.h). Communication: ring all-reduce of n·R floats,
// then of m·R floats: 4(p-1)α + 2((p-1)/p)·4(n+m)R·β; uncompressed tensors one
// all-reduce of n·m floats. Computation: three n×m×R products (M Q, Mᵀ P,
// P Qᵀ) and a Gram-Schmidt of O(n R²).
#include "tetrad/compress/powersgd.h"

#include <fmt/format.h>

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

struct MatrixView {
  size_t rows = 0;
  size_t cols = 0;
  size_t rank = 0;  // 0: uncompressed
};

MatrixView viewOf(const CompressorState& state, size_t count, int maxRank) {
  MatrixView view{count, 1, 0};
  if (state.shape.size() < 2) return view;
  uint64_t product = 1;
  for (int64_t dim : state.shape) {
    TETRAD_CHECK(dim >= 0, InvalidArgument, "powersgd: negative dimension {} in shape", dim);
    product *= static_cast<uint64_t>(dim);
  }
  TETRAD_CHECK(product == count, InvalidArgument,
               "powersgd: state shape has {} elements but the tensor has {}", product, count);
  if (count == 0) return view;
  view.rows = static_cast<size_t>(state.shape[0]);
  view.cols = count / view.rows;
  const size_t rank = std::min({static_cast<size_t>(maxRank), view.rows, view.cols});
  if ((view.rows + view.cols) * rank < count) view.rank = rank;
  return view;
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

// The warm-start Qᵀ (r×cols): kept from the last step, or N(0,1) from the seed.
std::vector<float>& warmQ(CompressorState& state, const MatrixView& view) {
  const size_t size = view.cols * view.rank;
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

PowerSgd::PowerSgd(int rank) : rank_(rank) {
  TETRAD_CHECK(rank >= 1 && rank <= kMaxRank, InvalidArgument,
               "powersgd rank must be in [1, {}], got {}", kMaxRank, rank);
}

std::string PowerSgd::spec() const {
  return fmt::format("powersgd:{}", rank_);
}

Packet PowerSgd::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t count = input.size();
  const MatrixView view = viewOf(state, count, rank_);
  Packet packet;
  reservePacket(
      packet.bytes,
      kPacketHeaderBytes + 12 + 4 * (view.rank == 0 ? count : (view.rows + view.cols) * view.rank));
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kPowerSgd, count);
  writer.put<uint32_t>(static_cast<uint32_t>(view.rows));
  writer.put<uint32_t>(static_cast<uint32_t>(view.cols));
  writer.put<uint32_t>(static_cast<uint32_t>(view.rank));
  if (view.rank == 0) {
    writer.putBytes(asBytes(input));
    return packet;
  }
  const size_t n = view.rows, m = view.cols, r = view.rank;
  std::vector<float>& matrix = state.buffer("residual", count);
  for (size_t i = 0; i < count; ++i) matrix[i] += input[i];
  std::vector<float>& q = warmQ(state, view);
  std::vector<float> p(n * r);
  multiply(matrix.data(), q.data(), p.data(), n, m, r);
  orthogonalizeColumns(p, n, r);
  multiplyTransposed(matrix.data(), p.data(), q.data(), n, m, r);
  addOuter(p.data(), q.data(), matrix.data(), n, m, r, -1.0f);
  writer.putBytes(asBytes(std::span<const float>(p)));
  writer.putBytes(asBytes(std::span<const float>(q)));
  return packet;
}

void PowerSgd::decodeAdd(ConstBytes packet, std::span<float> output) const {
  const size_t count = output.size();
  ByteReader reader(packet);
  readPacketHeader(reader, PacketKind::kPowerSgd, count);
  const uint64_t n = reader.get<uint32_t>("powersgd rows");
  const uint64_t m = reader.get<uint32_t>("powersgd columns");
  const uint64_t r = reader.get<uint32_t>("powersgd rank");
  TETRAD_CHECK(n * m == count && r <= std::min<uint64_t>({n, m, kMaxRank}), ProtocolError,
               "powersgd packet: {}x{} matrix of rank {} for a tensor of {} elements", n, m, r,
               count);
  const size_t floats = r == 0 ? count : (n + m) * r;
  ConstBytes payload = reader.getBytes(floats * sizeof(float), "powersgd payload");
  reader.expectEnd("powersgd packet");
  std::vector<float> values(floats);
  if (floats > 0) std::memcpy(values.data(), payload.data(), payload.size());
  if (r == 0) {
    for (size_t i = 0; i < count; ++i) output[i] += values[i];
    return;
  }
  addOuter(values.data(), values.data() + n * r, output.data(), n, m, r, 1.0f);
}

double PowerSgd::bitsPerElement(size_t count) const {
  if (count == 0) return 0;
  const double side = std::floor(std::sqrt(static_cast<double>(count)));
  const double r = std::min<double>(rank_, side);
  const double floats = 2 * side * r < count ? 2 * side * r : static_cast<double>(count);
  return (8.0 * (kPacketHeaderBytes + 12) + 32.0 * floats) / static_cast<double>(count);
}

void PowerSgd::aggregateCustomStep(Transport& transport, std::span<float> gradient,
                                   CompressorState& state, const ProtocolOptions& protocol) const {
  const Tag tag = protocol.tag;
  const size_t count = gradient.size();
  const MatrixView view = viewOf(state, count, rank_);
  AllreduceOptions options{protocol.allreduce, ReduceOp::kSum, tag};
  if (view.rank == 0) {
    allreduce(transport, gradient, options);
    return;
  }
  const size_t n = view.rows, m = view.cols, r = view.rank;
  std::vector<float>& matrix = state.buffer("residual", count);
  for (size_t i = 0; i < count; ++i) matrix[i] += gradient[i];
  std::vector<float>& q = warmQ(state, view);
  std::vector<float> p(n * r);
  multiply(matrix.data(), q.data(), p.data(), n, m, r);
  allreduce(transport, p, options);
  orthogonalizeColumns(p, n, r);
  multiplyTransposed(matrix.data(), p.data(), q.data(), n, m, r);
  addOuter(p.data(), q.data(), matrix.data(), n, m, r, -1.0f);
  options.tag = tag + kCollectiveTagSpan;
  allreduce(transport, q, options);
  std::fill(gradient.begin(), gradient.end(), 0.0f);
  addOuter(p.data(), q.data(), gradient.data(), n, m, r, 1.0f);
}

CompressorPtr makePowerSgd(const CompressorParams& params) {
  params.expectParamCount(1, 1);
  return std::make_unique<PowerSgd>(static_cast<int>(params.integer(0, "rank", 1, kMaxRank)));
}

}  // namespace tetrad
