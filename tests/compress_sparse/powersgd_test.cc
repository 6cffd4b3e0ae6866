// PowerSGD math: Gram-Schmidt, exactness on low-rank matrices, warm start,
// error feedback identity, small tensors, packets.
#include "tetrad/compress/powersgd.h"

#include <gtest/gtest.h>

#include <array>
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
      EXPECT_EQ(packet.size(), 16u + 4u + 12u + 4u * (rows + cols) * 2u);
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
    EXPECT_EQ(packet.size(), 16u + 4u + 12u + 4u * n);
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
    writer.put<uint32_t>(1);  // one part
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
                   (8.0 * 32 + 32.0 * 8000) / 1e6);
  EXPECT_EQ(makeCompressor("powersgd:4:batched")->spec(), "powersgd:4:batched");
  EXPECT_THROW(makeCompressor("powersgd:2:batchd"), InvalidArgument);
  EXPECT_THROW(makeCompressor("powersgd:2:batched:x"), InvalidArgument);
}

// A fused bucket [W1 40x30, b1 40, W2 20x36, b2 20] (compressor.h, layout).
CompressorState fusedState() {
  CompressorState s;
  s.layout = {{40, 30}, {40}, {20, 36}, {20}};
  s.seed = 5;
  return s;
}
constexpr size_t kFusedCount = 40 * 30 + 40 + 20 * 36 + 20;

TEST(PowerSgdFused, PlanKeepsAMatrixPerTensorAndGroupsTheRest) {
  const PowerSgdPlan plan = powerSgdPlan(fusedState(), kFusedCount, 2, false);
  ASSERT_EQ(plan.matrices.size(), 2u);
  EXPECT_EQ(plan.matrices[0].offset, 0u);
  EXPECT_EQ(plan.matrices[1].offset, 1240u);
  EXPECT_EQ(plan.matrices[1].rows, 20u);
  EXPECT_EQ(plan.matrices[1].cols, 36u);
  EXPECT_EQ(plan.pFloats, (40u + 20u) * 2u);
  EXPECT_EQ(plan.qFloats, (30u + 36u) * 2u);
  EXPECT_EQ(plan.rawFloats, 60u);
  ASSERT_EQ(plan.uncompressed.size(), 2u);
  EXPECT_EQ(plan.uncompressed[0], (std::pair<size_t, size_t>{1200, 40}));
  // Batched: one zero-padded square of side ⌈√2000⌉ = 45.
  const PowerSgdPlan batched = powerSgdPlan(fusedState(), kFusedCount, 2, true);
  ASSERT_EQ(batched.matrices.size(), 1u);
  EXPECT_TRUE(batched.padded);
  EXPECT_EQ(batched.matrices[0].rows, 45u);
  EXPECT_EQ(batched.qFloats, 90u);
  // A layout that does not add up is refused.
  CompressorState wrong = fusedState();
  wrong.layout.pop_back();
  EXPECT_THROW(powerSgdPlan(wrong, kFusedCount, 2, false), InvalidArgument);
}

TEST(PowerSgdFused, ABucketOfOneMatrixEqualsThePerTensorCompressor) {
  PowerSgd c(2);
  CompressorState tensor, bucket;
  tensor.shape = {40, 30};
  bucket.layout = {{40, 30}};
  tensor.seed = bucket.seed = 9;
  for (int t = 0; t < 3; ++t) {
    const std::vector<float> g = testing::gaussian(1200, 20 + t);
    const Packet a = c.encode(g, tensor);
    const Packet b = c.encode(g, bucket);
    EXPECT_EQ(a.bytes, b.bytes) << "step " << t;
  }
  EXPECT_EQ(tensor.buffers, bucket.buffers);
}

TEST(PowerSgdFused, PerMatrixPacketsAreExactOnLowRankAndCopyTheRest) {
  for (bool batched : {false, true}) {
    PowerSgd c(2, batched);
    CompressorState s = fusedState();
    std::vector<float> g(kFusedCount);
    const std::vector<float> w1 = lowRank(40, 30, 2, 1, 2), w2 = lowRank(20, 36, 1, 3, 4);
    const std::vector<float> b1 = testing::gaussian(40, 5), b2 = testing::gaussian(20, 6);
    std::copy(w1.begin(), w1.end(), g.begin());
    std::copy(b1.begin(), b1.end(), g.begin() + 1200);
    std::copy(w2.begin(), w2.end(), g.begin() + 1240);
    std::copy(b2.begin(), b2.end(), g.begin() + 1960);
    const Packet packet = c.encode(g, s);
    std::vector<float> out(kFusedCount, 0.0f);
    c.decodeAdd(packet.bytes, out);
    if (!batched) {
      // Each matrix has rank <= 2: exact; the vectors travel as they are.
      EXPECT_EQ(packet.size(), 16u + 4u + 4u * 12u + 4u * ((40 + 30) * 2 + (20 + 36) * 2 + 60));
      EXPECT_LT(relativeError(out, g), 1e-4);  // float rounding (a lossy result is ~1)
      EXPECT_EQ(std::vector<float>(out.begin() + 1200, out.begin() + 1240), b1);
    } else {
      // One 45x45 rank-2 factorisation of the padded bucket: compressed, lossy.
      EXPECT_EQ(packet.size(), 16u + 4u + 12u + 4u * (45 + 45) * 2);
      EXPECT_GT(relativeError(out, g), 1e-3);
    }
    // Error feedback: decoded + residual == input (first step).
    const std::vector<float>& residual = s.buffers.at("residual");
    for (size_t i = 0; i < kFusedCount; ++i) {
      const bool raw = !batched && ((i >= 1200 && i < 1240) || i >= 1960);
      EXPECT_NEAR(out[i] + (raw ? 0.0f : residual[i]), g[i], 1e-4f) << i << " batched " << batched;
    }
  }
}

TEST(PowerSgdFused, MalformedFusedPacketsThrow) {
  PowerSgd c(2);
  std::vector<float> out(24, 0.0f);
  auto packet = [](uint16_t flags, std::vector<std::array<uint32_t, 3>> parts, size_t floats) {
    ByteBuffer bytes;
    ByteWriter writer(bytes);
    writePacketHeader(writer, PacketKind::kPowerSgd, 24, flags);
    writer.put<uint32_t>(uint32_t(parts.size()));
    for (const auto& part : parts)
      for (uint32_t v : part) writer.put<uint32_t>(v);
    for (size_t i = 0; i < floats; ++i) writer.put<float>(1.0f);
    return bytes;
  };
  EXPECT_NO_THROW(c.decodeAdd(packet(0, {{4, 3, 1}, {12, 1, 0}}, 7 + 12), out));
  EXPECT_THROW(c.decodeAdd(packet(0, {{4, 3, 1}, {11, 1, 0}}, 7 + 11), out), ProtocolError);
  EXPECT_THROW(c.decodeAdd(packet(0, {{4, 3, 1}, {13, 1, 0}}, 7 + 13), out), ProtocolError);
  EXPECT_THROW(c.decodeAdd(packet(0, {{4, 3, 1}, {12, 1, 0}}, 7 + 11), out), ProtocolError);
  // Batched: one square part of rank >= 1 covering the vector with padding.
  EXPECT_NO_THROW(c.decodeAdd(packet(1, {{5, 5, 1}}, 10), out));
  EXPECT_THROW(c.decodeAdd(packet(1, {{5, 5, 0}}, 25), out), ProtocolError);
  EXPECT_THROW(c.decodeAdd(packet(1, {{4, 4, 1}}, 8), out), ProtocolError);  // 16 < 24
  EXPECT_THROW(c.decodeAdd(packet(1, {{5, 5, 1}, {1, 1, 0}}, 11), out), ProtocolError);
  EXPECT_THROW(c.decodeAdd(packet(2, {{4, 3, 1}, {12, 1, 0}}, 19), out), ProtocolError);
  EXPECT_THROW(c.decodeAdd(packet(0, std::vector<std::array<uint32_t, 3>>(1000), 0), out),
               ProtocolError);
}

}  // namespace
}  // namespace tetrad
