// PowerSGD math: Gram-Schmidt, exactness on low-rank matrices, warm start,
// error feedback identity, small tensors, packets.
#include "tetrad/compress/powersgd.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"
#include "tetrad/compress/registry.h"

namespace tetrad {
namespace {

// rows×cols matrix U Vᵀ of rank `rank` (U, V Gaussian from the two seeds).
std::vector<float> lowRank(size_t rows, size_t cols, size_t rank, uint64_t seedU, uint64_t seedV) {
  const std::vector<float> u = testing::gaussian(rows * rank, seedU);
  const std::vector<float> v = testing::gaussian(cols * rank, seedV + 1000);
  std::vector<float> m(rows * cols, 0.0f);
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j)
      for (size_t c = 0; c < rank; ++c) m[i * cols + j] += u[i * rank + c] * v[j * rank + c];
  return m;
}

double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
    norm += double{b[i]} * b[i];
  }
  return std::sqrt(diff / norm);
}

TEST(PowerSgd, GramSchmidtGivesOrthonormalColumns) {
  const size_t rows = 50, cols = 4;
  std::vector<float> p = testing::gaussian(rows * cols, 1);
  orthogonalizeColumns(p, rows, cols);
  for (size_t a = 0; a < cols; ++a) {
    for (size_t b = 0; b < cols; ++b) {
      double dot = 0;
      for (size_t i = 0; i < rows; ++i) dot += double{p[i * cols + a]} * p[i * cols + b];
      EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-5) << a << "," << b;
    }
  }
  // A dependent column becomes zero instead of amplified noise.
  std::vector<float> q(rows * 2);
  for (size_t i = 0; i < rows; ++i) q[i * 2] = q[i * 2 + 1] = static_cast<float>(i + 1);
  orthogonalizeColumns(q, rows, 2);
  for (size_t i = 0; i < rows; ++i) EXPECT_EQ(q[i * 2 + 1], 0.0f);
}

TEST(PowerSgd, ExactOnMatricesOfRankAtMostR) {
  const size_t rows = 40, cols = 30;
  for (size_t trueRank : {1u, 2u}) {
    PowerSgd c(2);
    CompressorState s;
    s.shape = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
    s.seed = 7;
    // Steps 0-2: the first with a random Q, then warm-started on matrices
    // that share the row space (the warm start tracks it): exact to float
    // rounding. Step 3: an unrelated matrix; still exact, but the rounding is
    // amplified by the conditioning of Vᵀ Q_old, so the bound is looser.
    for (int t = 0; t < 4; ++t) {
      const std::vector<float> m = lowRank(rows, cols, trueRank, 10 * t + trueRank, t < 3 ? 0 : 99);
      Packet packet = c.encode(m, s);
      EXPECT_EQ(packet.size(), 16u + 12u + 4u * (rows + cols) * 2u);
      std::vector<float> out(m.size(), 0.0f);
      c.decodeAdd(packet.bytes, out);
      EXPECT_LT(relativeError(out, m), t < 3 ? 1e-5 : 1e-3) << "rank " << trueRank << " step " << t;
    }
    EXPECT_EQ(s.buffers["q"].size(), cols * 2);
  }
}

TEST(PowerSgd, ErrorFeedbackConservesTheSignal) {
  // Σ_t decoded_t + residual_T == Σ_t g_t for full-rank inputs.
  PowerSgd c(1);
  CompressorState s;
  s.shape = {16, 3, 4};  // viewed as 16 x 12
  std::vector<double> sent(192, 0.0), total(192, 0.0);
  for (int t = 0; t < 10; ++t) {
    const std::vector<float> g = testing::gaussian(192, t);
    Packet packet = c.encode(g, s);
    std::vector<float> out(g.size(), 0.0f);
    c.decodeAdd(packet.bytes, out);
    for (size_t i = 0; i < g.size(); ++i) {
      sent[i] += out[i];
      total[i] += g[i];
    }
  }
  const std::vector<float>& residual = s.buffers["residual"];
  for (size_t i = 0; i < 192; ++i) EXPECT_NEAR(sent[i] + residual[i], total[i], 1e-4);
  // Warm start helps: the approximation error shrinks on a fixed full-rank matrix.
}

TEST(PowerSgd, WarmStartConvergesToTheTopSingularDirection) {
  // Repeating the same matrix: power iteration converges, so the rank-1
  // result approaches the best rank-1 approximation; with error feedback
  // off (fresh residual each time) the error decreases monotonically.
  const std::vector<float> m = testing::gaussian(30 * 20, 3);
  PowerSgd c(1);
  CompressorState s;
  s.shape = {30, 20};
  double first = 0, last = 0;
  for (int t = 0; t < 30; ++t) {
    s.buffers.erase("residual");
    Packet packet = c.encode(m, s);
    std::vector<float> out(m.size(), 0.0f);
    c.decodeAdd(packet.bytes, out);
    const double error = relativeError(out, m);
    if (t == 0) first = error;
    last = error;
  }
  EXPECT_LT(last, first);
}

TEST(PowerSgd, VectorsAndSmallMatricesTravelUncompressed) {
  PowerSgd c(4);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {64}, {6, 6}, {8, 3}}) {
    CompressorState s;
    s.shape = shape;
    const size_t n = shape.empty() ? 64 : (shape.size() == 1 ? 64 : shape[0] * shape[1]);
    const std::vector<float> g = testing::gaussian(n, 4);
    Packet packet = c.encode(g, s);
    EXPECT_EQ(packet.size(), 16u + 12u + 4u * n);
    std::vector<float> out(n, 0.0f);
    c.decodeAdd(packet.bytes, out);
    EXPECT_EQ(out, g);
  }
  CompressorState wrong;
  wrong.shape = {5, 5};
  EXPECT_THROW(c.encode(testing::gaussian(24, 1), wrong), InvalidArgument);
}

TEST(PowerSgd, MalformedPacketsThrow) {
  PowerSgd c(2);
  std::vector<float> out(12, 0.0f);
  auto packet = [](uint64_t count, uint32_t n, uint32_t m, uint32_t r, size_t floats) {
    ByteBuffer bytes;
    ByteWriter writer(bytes);
    writePacketHeader(writer, PacketKind::kPowerSgd, count);
    writer.put<uint32_t>(n);
    writer.put<uint32_t>(m);
    writer.put<uint32_t>(r);
    for (size_t i = 0; i < floats; ++i) writer.put<float>(1.0f);
    return bytes;
  };
  EXPECT_NO_THROW(c.decodeAdd(packet(12, 4, 3, 1, 7), out));
  EXPECT_NO_THROW(c.decodeAdd(packet(12, 4, 3, 0, 12), out));
  EXPECT_THROW(c.decodeAdd(packet(12, 4, 4, 1, 8), out), ProtocolError);   // 16 != 12
  EXPECT_THROW(c.decodeAdd(packet(12, 4, 3, 4, 28), out), ProtocolError);  // r > min
  EXPECT_THROW(c.decodeAdd(packet(12, 4, 3, 1, 6), out), ProtocolError);   // short
  EXPECT_THROW(c.decodeAdd(packet(12, 4, 3, 1, 8), out), ProtocolError);   // trailing
  EXPECT_THROW(c.decodeAdd(packet(12, 0xffffffffu, 0xffffffffu, 2, 0), out), ProtocolError);
}

TEST(PowerSgd, SpecAndBits) {
  EXPECT_EQ(makeCompressor("powersgd:4")->spec(), "powersgd:4");
  EXPECT_THROW(makeCompressor("powersgd:0"), InvalidArgument);
  EXPECT_THROW(makeCompressor("powersgd:2,ef"), InvalidArgument);
  // 1000x1000 at rank 4: 2·1000·4 floats.
  EXPECT_DOUBLE_EQ(makeCompressor("powersgd:4")->bitsPerElement(1000000),
                   (8.0 * 28 + 32.0 * 8000) / 1e6);
}

}  // namespace
}  // namespace tetrad
