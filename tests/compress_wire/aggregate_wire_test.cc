// aggregate() with fp16 / bf16 on simulated clusters: the all-reduce moves
// 2-byte values (half the bytes of "none", exactly), every rank ends with
// the same result, and that result is the average of the decoded gradients
// within the wire's rounding bound (collectives/allreduce.h).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "tetrad/collectives/partition.h"
#include "tetrad/compress/aggregate.h"
#include "tetrad/compress/registry.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

constexpr size_t kLength = 4099;  // odd: unequal ring blocks, vector and scalar tails
constexpr int kSteps = 2;

std::vector<float> gradientOf(int rank, int step) {
  std::mt19937_64 generator(1000 * step + rank);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(kLength);
  for (float& v : values) v = normal(generator);
  return values;
}

struct AggregateRun {
  std::vector<std::vector<std::vector<float>>> results;  // [step][rank]
  std::vector<uint64_t> bytesSent;                       // per rank, first step
};

AggregateRun runAggregate(int p, const std::string& spec, AllreduceAlgorithm algorithm) {
  AggregateRun run{
      std::vector<std::vector<std::vector<float>>>(kSteps, std::vector<std::vector<float>>(p)),
      std::vector<uint64_t>(p)};
  LaunchOptions options;
  options.cluster = fmt::format("sim:{}x10Gbps,25us", p);
  options.timeoutSeconds = 30;
  launch(options, [&](Transport& transport) {
    CompressorPtr compressor = makeCompressor(spec);
    CompressorState state;
    state.rank = transport.rank();
    AggregateOptions aggregateOptions;
    aggregateOptions.allreduce = algorithm;
    for (int step = 0; step < kSteps; ++step) {
      std::vector<float> gradient = gradientOf(transport.rank(), step);
      const uint64_t before = transport.traffic().totalBytesSent();
      aggregate(transport, *compressor, gradient, state, aggregateOptions);
      if (step == 0)
        run.bytesSent[transport.rank()] = transport.traffic().totalBytesSent() - before;
      run.results[step][transport.rank()] = std::move(gradient);
    }
  });
  return run;
}

// The average of every rank's decoded packet in double precision, and the
// wire's bound around it: p·2^-10 (fp16) or p·2^-7 (bf16) times the average
// magnitude, plus fp16's absolute rounding near zero.
void checkAgainstReference(int p, const std::string& spec, const AggregateRun& run, double relative,
                           double absolute) {
  CompressorPtr compressor = makeCompressor(spec);
  std::vector<CompressorState> states(static_cast<size_t>(p));
  for (int step = 0; step < kSteps; ++step) {
    std::vector<double> sum(kLength, 0.0), magnitude(kLength, 0.0);
    for (int r = 0; r < p; ++r) {
      std::vector<float> decoded(kLength, 0.0f);
      compressor->decodeAdd(compressor->encode(gradientOf(r, step), states[r]).bytes, decoded);
      for (size_t i = 0; i < kLength; ++i) {
        sum[i] += decoded[i];
        magnitude[i] += std::fabs(decoded[i]);
      }
    }
    bool differs = false;
    for (size_t i = 0; i < kLength; ++i) {
      const double bound = (p * relative * magnitude[i] + absolute) / p;
      const float got = run.results[step][0][i];
      ASSERT_LE(std::fabs(got - sum[i] / p), bound) << spec << " step " << step << " i=" << i;
      differs = differs || std::fabs(got - sum[i] / p) > 1e-7 * magnitude[i];
    }
    // The 16-bit rounding of partial sums is visible (the wire is not float32).
    EXPECT_TRUE(differs) << spec << " step " << step;
    for (int r = 1; r < p; ++r) {
      EXPECT_EQ(0, std::memcmp(run.results[step][r].data(), run.results[step][0].data(),
                               kLength * sizeof(float)))
          << spec << " step " << step << ": rank " << r << " differs from rank 0";
    }
  }
}

// The figure: ring fp16 over 4 ranks sends 2(n−1)/n·N·2 bytes per
// rank, exactly half of "none".
TEST(AggregateWire, Fp16RingOnFourRanksSendsHalfTheBytesOfNone) {
  const int p = 4;
  const AggregateRun none = runAggregate(p, "none", AllreduceAlgorithm::kRing);
  const AggregateRun fp16 = runAggregate(p, "fp16", AllreduceAlgorithm::kRing);
  for (int r = 0; r < p; ++r) {
    const uint64_t expected = 2 * (2 * kLength - blockRange(kLength, p, r).count -
                                   blockRange(kLength, p, (r + 1) % p).count);
    EXPECT_EQ(fp16.bytesSent[r], expected) << "rank " << r;
    EXPECT_EQ(2 * fp16.bytesSent[r], none.bytesSent[r]) << "rank " << r;
  }
  checkAgainstReference(p, "fp16", fp16, 0x1p-10, p * 0x1p-24);
}

TEST(AggregateWire, EveryAlgorithmAndFormatHalvesTheBytesWithinTheBound) {
  const int p = 4;
  for (AllreduceAlgorithm algorithm :
       {AllreduceAlgorithm::kRecursiveDoubling, AllreduceAlgorithm::kRabenseifner,
        AllreduceAlgorithm::kTree, AllreduceAlgorithm::kHierarchical}) {
    const AggregateRun none = runAggregate(p, "none", algorithm);
    for (const char* spec : {"fp16", "bf16", "fp16,ef"}) {
      SCOPED_TRACE(fmt::format("{} over {}", spec, toString(algorithm)));
      const AggregateRun run = runAggregate(p, spec, algorithm);
      for (int r = 0; r < p; ++r) EXPECT_EQ(2 * run.bytesSent[r], none.bytesSent[r]) << r;
      const bool half = std::string(spec).starts_with("fp16");
      checkAgainstReference(p, spec, run, half ? 0x1p-10 : 0x1p-7, half ? p * 0x1p-24 : 1e-30);
    }
  }
}

}  // namespace
}  // namespace tetrad
