// CompressorState::step: every entry point that consumes a step (encode(),
// encodeSummable(), aggregateCustom() and aggregate()) advances it by exactly
// one, for every registered compressor and its ",ef" form, and a compressor's
// hook runs with state.step = the index of the step it takes (compressor.h).
#include <gtest/gtest.h>

#include <mutex>

#include "quant_test_util.h"
#include "tetrad/compress/aggregate.h"
#include "tetrad/compress/registry.h"
#include "tetrad/compress/selection.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

// A matrix, so that powersgd compresses and onebit:col has columns.
const std::vector<int64_t> kShape = {37, 29};
constexpr size_t kCount = 37 * 29;
constexpr int kSteps = 3;

CompressorState freshState(int rank) {
  CompressorState state;
  state.shape = kShape;
  state.seed = 77;
  state.rank = rank;
  return state;
}

TEST(Step, EncodeAndEncodeSummableAdvanceItByExactlyOne) {
  for (const std::string& spec : testing::allSpecs()) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state = freshState(1);
    for (int t = 0; t < kSteps; ++t) {
      c->encode(testing::gaussian(kCount, t), state);
      EXPECT_EQ(state.step, static_cast<uint64_t>(t + 1)) << spec << " encode " << t;
    }
    CompressorState summable = freshState(1);
    for (int t = 0; t < kSteps; ++t) {
      const std::vector<float> values = c->encodeSummable(testing::gaussian(kCount, t), summable);
      EXPECT_EQ(summable.step, static_cast<uint64_t>(t + 1)) << spec << " encodeSummable " << t;
      std::vector<float> expanded(kCount);
      c->expandSummed(values, summable, expanded);  // reads the state, never advances it
      EXPECT_EQ(summable.step, static_cast<uint64_t>(t + 1)) << spec << " expandSummed " << t;
    }
  }
}

TEST(Step, AggregateAdvancesItByExactlyOneOnTwoRanks) {
  const std::vector<std::string> specs = testing::allSpecs();
  // steps[rank][spec][t] = state.step after the t-th aggregate().
  std::vector<std::vector<std::vector<uint64_t>>> steps(2);
  std::mutex mutex;
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = 2;
  options.timeoutSeconds = 60;
  launch(options, [&](Transport& transport) {
    std::vector<std::vector<uint64_t>> mine;
    for (const std::string& spec : specs) {
      CompressorPtr c = makeCompressor(spec);
      CompressorState state = freshState(transport.rank());
      mine.emplace_back();
      for (int t = 0; t < kSteps; ++t) {
        std::vector<float> gradient = testing::gaussian(kCount, 10 * t + transport.rank());
        aggregate(transport, *c, gradient, state);
        mine.back().push_back(state.step);
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    steps[transport.rank()] = std::move(mine);
  });
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(steps[rank].size(), specs.size());
    for (size_t s = 0; s < specs.size(); ++s) {
      for (int t = 0; t < kSteps; ++t) {
        EXPECT_EQ(steps[rank][s][t], static_cast<uint64_t>(t + 1))
            << specs[s] << " rank " << rank << " aggregate " << t;
      }
    }
  }
}

// A compressor that records the step its hook sees, and throws on demand.
class StepProbe final : public Compressor {
 public:
  mutable std::vector<uint64_t> seen;
  mutable bool fail = false;

  std::string spec() const override { return "probe"; }
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override {}
  double bitsPerElement(size_t count) const override { return 0; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override {
    seen.push_back(state.step);
    if (fail) TETRAD_FAIL(InvalidArgument, "probe failure at step {}", state.step);
    return {};
  }
};

TEST(Step, HooksSeeTheIndexOfTheirStepAndAFailedStepDoesNotAdvance) {
  StepProbe probe;
  CompressorState state = freshState(0);
  state.step = 41;
  probe.encode(testing::gaussian(8, 1), state);
  probe.encodeSummable(testing::gaussian(8, 2), state);  // default: decode(encodeStep())
  EXPECT_EQ(probe.seen, (std::vector<uint64_t>{41, 42}));
  EXPECT_EQ(state.step, 43u);
  probe.fail = true;
  EXPECT_THROW(probe.encode(testing::gaussian(8, 3), state), InvalidArgument);
  EXPECT_THROW(probe.encodeSummable(testing::gaussian(8, 3), state), InvalidArgument);
  EXPECT_EQ(state.step, 43u);
}

TEST(Step, ExpandSummedBeforeAnyStepIsRefused) {
  const std::pair<const char*, size_t> cases[] = {
      {"randomk:0.1", keptCount(kCount, 0.1)}, {"fp16", kCount}, {"fp16,ef", kCount}};
  for (const auto& [spec, summedCount] : cases) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state = freshState(0);
    std::vector<float> output(kCount);
    const std::vector<float> summed(summedCount, 1.0f);
    EXPECT_THROW(c->expandSummed(summed, state, output), InvalidArgument) << spec;
  }
}

}  // namespace
}  // namespace tetrad
