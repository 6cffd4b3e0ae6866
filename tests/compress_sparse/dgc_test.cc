// DGC: momentum correction, momentum factor masking, warm-up schedule,
// local clipping, and conservation of the accumulated gradient.
#include "tetrad/compress/dgc.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"
#include "tetrad/compress/registry.h"
#include "tetrad/compress/sparse_packet.h"

namespace tetrad {
namespace {

std::vector<float> step(const Compressor& c, const std::vector<float>& g, CompressorState& s) {
  Packet packet = c.encode(g, s);
  std::vector<float> out(g.size(), 0.0f);
  c.decodeAdd(packet.bytes, out);
  return out;
}

TEST(Dgc, MomentumCorrectionAccumulatesVelocityAndMasksWhatWasSent) {
  // Two elements, one sent per step (ratio 0.5), momentum 0.5.
  DgcOptions options;
  options.ratio = 0.5;
  options.momentum = 0.5;
  Dgc c(options);
  CompressorState s;
  // Step 0: g = (1, 0.25): u = g, v = g; send index 0 (1.0); mask u0, v0.
  std::vector<float> out = step(c, {1.0f, 0.25f}, s);
  EXPECT_EQ(out, (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(s.buffers["momentum"], (std::vector<float>{0.0f, 0.25f}));
  EXPECT_EQ(s.buffers["accumulation"], (std::vector<float>{0.0f, 0.25f}));
  // Step 1: g = (0.5, 0.25): u = (0.5, 0.375), v = (0.5, 0.625): send index 1.
  out = step(c, {0.5f, 0.25f}, s);
  EXPECT_EQ(out, (std::vector<float>{0.0f, 0.625f}));
  EXPECT_EQ(s.buffers["momentum"], (std::vector<float>{0.5f, 0.0f}));
  EXPECT_EQ(s.buffers["accumulation"], (std::vector<float>{0.5f, 0.0f}));
  EXPECT_EQ(s.step, 2u);
}

TEST(Dgc, SentPlusAccumulationEqualsSumOfMomentumUpdates) {
  // Without masking losses: Σ sent + v == Σ_t u_t, where u_t is the velocity
  // before masking; check the simplest consequence with momentum ~0: the
  // accumulated gradient is conserved (Σ sent + v == Σ g, momentum 1e-9).
  DgcOptions options;
  options.ratio = 0.01;
  options.momentum = 1e-9;
  Dgc c(options);
  CompressorState s;
  std::vector<double> sent(3000, 0.0), total(3000, 0.0);
  for (int t = 0; t < 20; ++t) {
    const std::vector<float> g = testing::gaussian(3000, 100 + t);
    const std::vector<float> out = step(c, g, s);
    for (size_t i = 0; i < g.size(); ++i) {
      sent[i] += out[i];
      total[i] += g[i];
    }
  }
  const std::vector<float>& v = s.buffers["accumulation"];
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(sent[i] + v[i], total[i], 1e-4);
}

TEST(Dgc, WarmUpFollowsThePaperSchedule) {
  DgcOptions options;
  options.ratio = 0.001;
  options.warmupStages = 4;
  options.stageSteps = 3;
  Dgc c(options);
  const double expected[] = {0.25119, 0.063096, 0.015849, 0.0039811, 0.001};
  for (uint64_t t = 0; t < 18; ++t) {
    EXPECT_NEAR(c.densityAt(t), expected[std::min<uint64_t>(t / 3, 4)], 1e-5) << t;
  }
  // The packets shrink accordingly.
  CompressorState s;
  const std::vector<float> g = testing::gaussian(100000, 1);
  EXPECT_EQ(c.encode(g, s).size(), sparsePacketBytes(25119));
  for (int t = 1; t < 12; ++t) c.encode(g, s);
  EXPECT_EQ(c.encode(g, s).size(), sparsePacketBytes(100));
}

TEST(Dgc, LocalClippingBoundsTheGradientNorm) {
  DgcOptions options;
  options.ratio = 1.0;  // send everything: the packet is the clipped gradient
  options.clipNorm = 1.0;
  Dgc c(options);
  CompressorState s;
  std::vector<float> g = testing::gaussian(1000, 2);
  const std::vector<float> out = step(c, g, s);
  EXPECT_NEAR(std::sqrt(testing::squaredNorm(out)), 1.0, 1e-5);
  const double scale = 1.0 / std::sqrt(testing::squaredNorm(g));
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(out[i], g[i] * scale, 1e-6);
}

TEST(Dgc, SpecsAndBits) {
  EXPECT_EQ(makeCompressor("dgc:0.001")->spec(), "dgc:0.001:momentum=0.9");
  const char* full = "dgc:0.01:momentum=0.5:warmup=4:stage=100:clip=2:exact";
  EXPECT_EQ(makeCompressor(full)->spec(), full);
  EXPECT_THROW(makeCompressor("dgc:0.01,ef"), InvalidArgument);  // built-in EF
  EXPECT_THROW(makeCompressor("dgc:0.01:momentum=1"), InvalidArgument);
  EXPECT_THROW(makeCompressor("dgc:0.01:warmup=1.5"), InvalidArgument);
  EXPECT_THROW(makeCompressor("dgc:0.01:nesterov"), InvalidArgument);
  EXPECT_DOUBLE_EQ(makeCompressor("dgc:0.001")->bitsPerElement(1000000),
                   8.0 * sparsePacketBytes(1000) / 1e6);
}

}  // namespace
}  // namespace tetrad
