// Top-k, Random-k and threshold: what they keep, their bits per element,
// contraction / unbiasedness, spec round trips and malformed packets.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "test_util.h"
#include "tetrad/compress/randomk.h"
#include "tetrad/compress/registry.h"
#include "tetrad/compress/selection.h"
#include "tetrad/compress/sparse_packet.h"
#include "tetrad/compress/threshold.h"
#include "tetrad/compress/topk.h"

namespace tetrad {
namespace {

std::vector<float> roundTrip(const Compressor& c, const std::vector<float>& x,
                             CompressorState& state) {
  Packet packet = c.encode(x, state);
  std::vector<float> out(x.size(), 0.0f);
  c.decodeAdd(packet.bytes, out);
  return out;
}

TEST(TopK, KeepsTheKLargestMagnitudesExactly) {
  const std::vector<float> x = testing::gaussian(100000, 1);
  for (const char* spec : {"topk:0.01", "topk:0.01:exact", "topk:0.01:approx"}) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state;
    Packet packet = c->encode(x, state);
    EXPECT_EQ(packet.size(), sparsePacketBytes(1000)) << spec;
    EXPECT_EQ(state.step, 1u);
    std::vector<float> out(x.size(), 0.0f);
    c->decodeAdd(packet.bytes, out);
    std::vector<uint32_t> expected;
    selectTopK(x, 1000, SelectionMethod::kExact, expected);
    size_t kept = 0;
    for (uint32_t i = 0; i < x.size(); ++i) {
      const bool selected = std::binary_search(expected.begin(), expected.end(), i);
      EXPECT_EQ(out[i], selected ? x[i] : 0.0f) << spec << " index " << i;
      kept += out[i] != 0 ? 1 : 0;
    }
    EXPECT_EQ(kept, 1000u) << spec;
  }
}

TEST(TopK, BitsPerElementIsSixtyFourPerKeptElementPlusHeader) {
  CompressorPtr c = makeCompressor("topk:0.01");
  EXPECT_DOUBLE_EQ(c->bitsPerElement(100000), (8.0 * (20 + 8 * 1000)) / 100000);
  const std::vector<float> x = testing::gaussian(100000, 2);
  CompressorState state;
  EXPECT_EQ(c->encode(x, state).size() * 8.0 / x.size(), c->bitsPerElement(x.size()));
  EXPECT_FALSE(c->unbiased());
  EXPECT_EQ(c->aggregation(), Aggregation::kGather);
}

TEST(TopK, IsAContraction) {
  // ||x - C(x)||^2 <= (1 - k/d) ||x||^2, deterministically, for every input.
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const std::vector<float> x = testing::gaussian(5000 + seed * 37, seed);
    for (double ratio : {0.001, 0.01, 0.3}) {
      TopK c(ratio, SelectionMethod::kApprox);
      CompressorState state;
      std::vector<float> y = roundTrip(c, x, state);
      for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] - y[i];
      const double k = static_cast<double>(keptCount(x.size(), ratio));
      EXPECT_LE(testing::squaredNorm(y), (1 - k / x.size()) * testing::squaredNorm(x) + 1e-9);
    }
  }
}

TEST(SparseCompressors, SpecsRoundTripAndBadSpecsAreRefused) {
  for (const char* spec :
       {"topk:0.01", "topk:0.5:exact", "randomk:0.1", "randomk:0.1:scaled", "threshold:0.25",
        "topk:0.01,ef", "randomk:0.05,ef", "threshold:0.5,ef"}) {
    EXPECT_EQ(makeCompressor(spec)->spec(), spec);
  }
  EXPECT_EQ(makeCompressor("topk:0.01:approx")->spec(), "topk:0.01");
  for (const char* bad :
       {"topk", "topk:0", "topk:1.5", "topk:0.1:fast", "topk:0.1:exact:approx", "randomk:-1",
        "randomk:0.1:unbiased", "threshold:0", "threshold:x", "threshold:1:2"}) {
    EXPECT_THROW(makeCompressor(bad), InvalidArgument) << bad;
  }
}

TEST(RandomK, AllRanksPickTheSameIndicesPerStep) {
  const std::vector<uint32_t> a = randomIndices(100000, 1000, 42, 7);
  const std::vector<uint32_t> b = randomIndices(100000, 1000, 42, 7);
  const std::vector<uint32_t> other = randomIndices(100000, 1000, 42, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
  ASSERT_EQ(a.size(), 1000u);
  EXPECT_TRUE(std::adjacent_find(a.begin(), a.end(), std::greater_equal<uint32_t>()) == a.end());
  EXPECT_LT(a.back(), 100000u);
  EXPECT_EQ(randomIndices(10, 10, 1, 1).size(), 10u);
}

TEST(RandomK, ScaledIsUnbiasedAndUnscaledContractsInExpectation) {
  // Statistical, fixed seeds: 4000 steps on a 200-element tensor at 10%.
  const std::vector<float> x = testing::gaussian(200, 5);
  RandomK scaled(0.1, true), plain(0.1, false);
  CompressorState s1, s2;
  s1.seed = s2.seed = 99;
  std::vector<double> mean(x.size(), 0.0);
  double residual = 0;
  const int steps = 4000;
  for (int t = 0; t < steps; ++t) {
    const std::vector<float> y = roundTrip(scaled, x, s1);
    for (size_t i = 0; i < x.size(); ++i) mean[i] += y[i] / steps;
    std::vector<float> z = roundTrip(plain, x, s2);
    for (size_t i = 0; i < x.size(); ++i) z[i] = x[i] - z[i];
    residual += testing::squaredNorm(z) / steps;
  }
  // Each mean[i] has standard deviation |x_i|·sqrt((d/k - 1)/steps) = |x_i|·0.047.
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, std::fabs(mean[i] - x[i]) / (std::fabs(x[i]) + 1e-3));
  }
  EXPECT_LT(worst, 0.25);
  // E||x - C(x)||^2 = (1 - k/d)||x||^2 = 0.9 ||x||^2.
  EXPECT_NEAR(residual / testing::squaredNorm(x), 0.9, 0.01);
  EXPECT_TRUE(scaled.unbiased());
  EXPECT_FALSE(plain.unbiased());
}

TEST(RandomK, PacketCarriesValuesOnlyAndSummableDomainIsKValues) {
  RandomK c(0.01, false);
  const std::vector<float> x = testing::gaussian(100000, 6);
  CompressorState state;
  state.seed = 3;
  Packet packet = c.encode(x, state);
  EXPECT_EQ(packet.size(), 16u + 20u + 4u * 1000u);
  EXPECT_DOUBLE_EQ(c.bitsPerElement(x.size()), 8.0 * packet.size() / x.size());
  CompressorState again;
  again.seed = 3;
  const std::vector<float> values = c.encodeSummable(x, again);
  ASSERT_EQ(values.size(), 1000u);
  std::vector<float> expanded(x.size(), 7.0f);
  c.expandSummed(values, again, expanded);
  std::vector<float> decoded(x.size(), 0.0f);
  c.decodeAdd(packet.bytes, decoded);
  EXPECT_EQ(expanded, decoded);
}

TEST(Threshold, KeepsEveryElementAtOrAboveT) {
  const std::vector<float> x = testing::gaussian(50000, 7);
  CompressorPtr c = makeCompressor("threshold:2");
  CompressorState state;
  Packet packet = c->encode(x, state);
  std::vector<float> out(x.size(), 0.0f);
  c->decodeAdd(packet.bytes, out);
  size_t kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(out[i], std::fabs(x[i]) >= 2.0f ? x[i] : 0.0f);
    kept += std::fabs(x[i]) >= 2.0f ? 1 : 0;
  }
  EXPECT_EQ(packet.size(), sparsePacketBytes(kept));
  EXPECT_NEAR(static_cast<double>(kept) / x.size(), 0.0455, 0.005);              // P(|N(0,1)| >= 2)
  EXPECT_DOUBLE_EQ(c->bitsPerElement(100), 8.0 * sparsePacketBytes(100) / 100);  // upper bound
}

// --- malformed packets --------------------------------------------------------

ByteBuffer sparseBytes(PacketKind kind, uint64_t count, std::vector<uint32_t> indices,
                       std::vector<float> values, int64_t nnzOverride = -1) {
  ByteBuffer bytes;
  ByteWriter writer(bytes);
  writePacketHeader(writer, kind, count);
  writer.put<uint32_t>(nnzOverride >= 0 ? static_cast<uint32_t>(nnzOverride)
                                        : static_cast<uint32_t>(indices.size()));
  writer.putBytes(asBytes(std::span<const uint32_t>(indices)));
  writer.putBytes(asBytes(std::span<const float>(values)));
  return bytes;
}

TEST(SparsePacket, MalformedPacketsThrowAndWriteNothing) {
  TopK c(0.1, SelectionMethod::kExact);
  std::vector<float> out(10, 0.0f);
  const auto k = PacketKind::kTopK;
  const std::vector<ByteBuffer> bad = {
      sparseBytes(k, 10, {1, 12}, {1, 2}),                // index out of range
      sparseBytes(k, 10, {3, 3}, {1, 2}),                 // duplicate
      sparseBytes(k, 10, {4, 2}, {1, 2}),                 // not ascending
      sparseBytes(k, 10, {1, 2}, {1, 2}, 11),             // nnz > n (and short)
      sparseBytes(k, 10, {1, 2}, {1, 2}, 3),              // nnz says more than present
      sparseBytes(k, 10, {1, 2}, {1, 2}, 1),              // trailing bytes
      sparseBytes(k, 11, {1, 2}, {1, 2}),                 // wrong element count
      sparseBytes(PacketKind::kDgc, 10, {1, 2}, {1, 2}),  // wrong kind
      sparseBytes(k, 10, {0xffffffffu}, {1}),             // huge index
      ByteBuffer(7, std::byte{0}),                        // truncated header
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_THROW(c.decodeAdd(bad[i], out), ProtocolError) << "case " << i;
  }
  for (float v : out) EXPECT_EQ(v, 0.0f);
  // A valid one decodes.
  c.decodeAdd(sparseBytes(k, 10, {1, 9}, {1, 2}), out);
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_EQ(out[9], 2.0f);
}

TEST(SparsePacket, RandomCorruptionNeverReadsOutOfBounds) {
  // Flip random bytes of valid packets: decoding either succeeds or throws
  // ProtocolError (run under TETRAD_SANITIZE to check memory safety too).
  const std::vector<float> x = testing::gaussian(4096, 8);
  std::mt19937 rng(1);
  for (const char* spec :
       {"topk:0.05", "randomk:0.05", "threshold:1.5", "dgc:0.05", "gtopk:0.05"}) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state;
    const Packet packet = c->encode(x, state);
    size_t thrown = 0;
    for (int trial = 0; trial < 300; ++trial) {
      ByteBuffer bytes = packet.bytes;
      const int flips = 1 + trial % 4;
      for (int f = 0; f < flips; ++f) {
        bytes[rng() % std::min<size_t>(bytes.size(), 64)] ^=
            static_cast<std::byte>(1 + rng() % 255);
      }
      if (trial % 5 == 0) bytes.resize(rng() % bytes.size());
      std::vector<float> out(x.size(), 0.0f);
      try {
        c->decodeAdd(bytes, out);
      } catch (const ProtocolError&) {
        ++thrown;
      }
    }
    EXPECT_GT(thrown, 100u) << spec;
  }
}

TEST(RandomK, MalformedPacketsThrow) {
  RandomK c(0.5, false);
  std::vector<float> out(8, 0.0f);
  auto packet = [](uint64_t count, uint32_t k, size_t values, uint16_t flags) {
    ByteBuffer bytes;
    ByteWriter writer(bytes);
    writePacketHeader(writer, PacketKind::kRandomK, count, flags);
    writer.put<uint64_t>(1);
    writer.put<uint64_t>(2);
    writer.put<uint32_t>(k);
    for (size_t i = 0; i < values; ++i) writer.put<float>(1.0f);
    return bytes;
  };
  EXPECT_NO_THROW(c.decodeAdd(packet(8, 4, 4, 0), out));
  EXPECT_THROW(c.decodeAdd(packet(8, 9, 9, 0), out), ProtocolError);  // k > n
  EXPECT_THROW(c.decodeAdd(packet(8, 4, 3, 0), out), ProtocolError);  // short
  EXPECT_THROW(c.decodeAdd(packet(8, 4, 5, 0), out), ProtocolError);  // trailing
  EXPECT_THROW(c.decodeAdd(packet(8, 4, 4, 6), out), ProtocolError);  // unknown flag
  EXPECT_THROW(c.decodeAdd(packet(7, 4, 4, 0), out), ProtocolError);  // count
}

}  // namespace
}  // namespace tetrad
