// signSGD's majority vote (aggregateCustom) on a simulated cluster: the
// result is Σ scales · sign(Σ signs), ties give 0; error feedback around it
// keeps p − scale·sign(p) as the residual; non-custom compressors refuse
// aggregateCustom with Unsupported.
#include <gtest/gtest.h>

#include <mutex>

#include "quant_test_util.h"
#include "tetrad/compress/registry.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

LaunchOptions cluster(int workers) {
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = workers;
  options.timeoutSeconds = 30;
  return options;
}

std::vector<float> rankGradient(int rank, size_t n) {
  std::vector<float> g = testing::gaussian(n, 1000 + rank);
  return g;
}

// Expected sum: Σ_r mean|g_r| times the sign of Σ_r sign(g_r) (0 on ties).
std::vector<float> expectedVote(int workers, size_t n,
                                const std::vector<std::vector<float>>& inputs) {
  std::vector<int> votes(n, 0);
  double scales = 0;
  for (int r = 0; r < workers; ++r) {
    scales += testing::l1Norm(inputs[r]) / n;
    for (size_t i = 0; i < n; ++i) votes[i] += std::signbit(inputs[r][i]) ? -1 : 1;
  }
  std::vector<float> result(n);
  for (size_t i = 0; i < n; ++i) {
    result[i] = votes[i] > 0 ? static_cast<float>(scales)
                             : (votes[i] < 0 ? -static_cast<float>(scales) : 0.0f);
  }
  return result;
}

TEST(SignVote, MajorityOfSignsTimesSummedScale) {
  for (int workers : {1, 3, 4}) {
    const size_t n = 1001;
    std::vector<std::vector<float>> inputs, outputs(workers);
    for (int r = 0; r < workers; ++r) inputs.push_back(rankGradient(r, n));
    CompressorPtr sign = makeCompressor("sign");
    ASSERT_EQ(sign->aggregation(), Aggregation::kCustom);
    std::mutex mutex;
    launch(cluster(workers), [&](Transport& transport) {
      std::vector<float> g = inputs[transport.rank()];
      CompressorState state;
      state.rank = transport.rank();
      sign->aggregateCustom(transport, g, state, ProtocolOptions{500});
      std::lock_guard<std::mutex> lock(mutex);
      outputs[transport.rank()] = g;
    });
    std::vector<float> expected = expectedVote(workers, n, inputs);
    int ties = 0;
    for (size_t i = 0; i < n; ++i) ties += expected[i] == 0.0f;
    if (workers == 4) {
      EXPECT_GT(ties, 0);  // even worlds have ties: they give 0
    }
    for (int r = 0; r < workers; ++r) {
      ASSERT_EQ(outputs[r].size(), n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_NEAR(outputs[r][i], expected[i], 1e-5f * std::fabs(expected[i]))
            << "workers " << workers << " rank " << r << " i " << i;
      }
    }
  }
}

TEST(SignVote, ErrorFeedbackKeepsTheLocalResidual) {
  const int workers = 3;
  const size_t n = 500;
  std::vector<std::vector<float>> inputs, outputs(workers), residuals(workers);
  for (int r = 0; r < workers; ++r) inputs.push_back(rankGradient(r, n));
  CompressorPtr sign = makeCompressor("sign,ef");
  EXPECT_EQ(sign->aggregation(), Aggregation::kCustom);
  std::mutex mutex;
  launch(cluster(workers), [&](Transport& transport) {
    std::vector<float> g = inputs[transport.rank()];
    CompressorState state;
    state.rank = transport.rank();
    sign->aggregateCustom(transport, g, state, ProtocolOptions{500});
    std::lock_guard<std::mutex> lock(mutex);
    outputs[transport.rank()] = g;
    residuals[transport.rank()] = state.buffers.at("residual");
  });
  // First step: p = g (zero residual), so the vote is the plain vote and the
  // residual is g - mean|g| sign(g).
  std::vector<float> expected = expectedVote(workers, n, inputs);
  for (int r = 0; r < workers; ++r) {
    const float scale = static_cast<float>(testing::l1Norm(inputs[r]) / n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(outputs[r][i], expected[i], 1e-5f * std::fabs(expected[i]));
      const float local = std::signbit(inputs[r][i]) ? -scale : scale;
      ASSERT_NEAR(residuals[r][i], inputs[r][i] - local, 1e-5f);
    }
  }
}

// Signum (sign:momentum=M): each rank votes with the sign of its own
// momentum m <- M·m + (1 − M)·g, taken before the sign.
TEST(SignVote, SignumVotesWithTheLocalMomentum) {
  const int workers = 3;
  const size_t n = 515;
  const float keep = static_cast<float>(0.9), take = static_cast<float>(1 - 0.9);
  std::vector<std::vector<float>> momenta(workers, std::vector<float>(n, 0.0f));
  std::vector<std::vector<std::vector<float>>> got(2, std::vector<std::vector<float>>(workers));
  std::mutex mutex;
  launch(cluster(workers), [&](Transport& transport) {
    CompressorPtr c = makeCompressor("sign:momentum=0.9");
    CompressorState state;
    state.rank = transport.rank();
    for (int step = 0; step < 2; ++step) {
      std::vector<float> g = rankGradient(transport.rank() + 10 * step, n);
      c->aggregateCustom(transport, g, state, {});
      std::lock_guard<std::mutex> lock(mutex);
      got[step][transport.rank()] = std::move(g);
    }
  });
  for (int step = 0; step < 2; ++step) {
    for (int r = 0; r < workers; ++r) {
      const std::vector<float> g = rankGradient(r + 10 * step, n);
      for (size_t i = 0; i < n; ++i) momenta[r][i] = keep * momenta[r][i] + take * g[i];
    }
    const std::vector<float> expected = expectedVote(workers, n, momenta);
    for (int r = 0; r < workers; ++r) {
      ASSERT_EQ(got[step][r].size(), n);
      for (size_t i = 0; i < n; ++i) {
        EXPECT_NEAR(got[step][r][i], expected[i], 1e-5f * std::abs(expected[i]))
            << "step " << step << " rank " << r << " element " << i;
      }
    }
  }
  EXPECT_EQ(makeCompressor("sign:momentum=0.9")->spec(), "sign:momentum=0.9");
  EXPECT_EQ(makeCompressor("sign")->spec(), "sign");
  EXPECT_THROW(makeCompressor("sign:momentum=1"), InvalidArgument);
  EXPECT_THROW(makeCompressor("sign:momentum=-0.1"), InvalidArgument);
  EXPECT_THROW(makeCompressor("sign:0.9"), InvalidArgument);
}

TEST(SignVote, NonCustomCompressorsRefuseAggregateCustom) {
  CompressorPtr qsgd = makeCompressor("qsgd:4");
  bool threw = false;
  launch(cluster(1), [&](Transport& transport) {
    std::vector<float> g(10, 1.0f);
    CompressorState state;
    try {
      qsgd->aggregateCustom(transport, g, state, ProtocolOptions{500});
    } catch (const Unsupported& e) {
      threw = std::string(e.what()).find("qsgd:4") != std::string::npos;
    }
  });
  EXPECT_TRUE(threw);
}

}  // namespace
}  // namespace tetrad
