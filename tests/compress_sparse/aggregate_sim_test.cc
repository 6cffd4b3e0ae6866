// aggregate() over simulated clusters of 4..8 ranks against naive references
// that decode every rank's packet and sum (gather, summable), re-run the
// protocol's definition (gTop-k), or check its invariants (majority vote,
// PowerSGD).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "test_util.h"
#include "tetrad/compress/aggregate.h"
#include "tetrad/compress/registry.h"
#include "tetrad/compress/selection.h"
#include "tetrad/compress/sparse_packet.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

constexpr size_t kLength = 4099;
constexpr int kSteps = 2;
constexpr uint64_t kSeed = 77;

std::vector<float> gradientOf(int rank, int step) {
  return testing::gaussian(kLength, 1000 * step + rank);
}

CompressorState freshState(int rank) {
  CompressorState state;
  state.seed = kSeed;
  state.rank = rank;
  return state;
}

LaunchOptions cluster(int p) {
  LaunchOptions options;
  options.cluster = fmt::format("sim:{}x10Gbps,25us", p);
  options.timeoutSeconds = 30;
  return options;
}

// results[step][rank] = the aggregated gradient of that rank at that step.
using Results = std::vector<std::vector<std::vector<float>>>;

Results runAggregate(int p, const std::string& spec, std::vector<uint64_t>* bytesSent = nullptr,
                     AllreduceAlgorithm algorithm = AllreduceAlgorithm::kRing) {
  Results results(kSteps, std::vector<std::vector<float>>(p));
  if (bytesSent) bytesSent->assign(p, 0);
  launch(cluster(p), [&](Transport& transport) {
    CompressorPtr compressor = makeCompressor(spec);
    CompressorState state = freshState(transport.rank());
    AggregateOptions options;
    options.allreduce = algorithm;
    for (int step = 0; step < kSteps; ++step) {
      std::vector<float> gradient = gradientOf(transport.rank(), step);
      const uint64_t before = transport.traffic().totalBytesSent();
      aggregate(transport, *compressor, gradient, state, options);
      if (bytesSent && step == 0) {
        (*bytesSent)[transport.rank()] = transport.traffic().totalBytesSent() - before;
      }
      results[step][transport.rank()] = std::move(gradient);
    }
  });
  return results;
}

// Naive reference: every rank's packet decoded and summed in rank order,
// divided by p.
std::vector<std::vector<float>> decodeAndSum(int p, const std::string& spec) {
  CompressorPtr compressor = makeCompressor(spec);
  std::vector<CompressorState> states;
  for (int r = 0; r < p; ++r) states.push_back(freshState(r));
  std::vector<std::vector<float>> expected(kSteps, std::vector<float>(kLength, 0.0f));
  for (int step = 0; step < kSteps; ++step) {
    for (int r = 0; r < p; ++r) {
      const Packet packet = compressor->encode(gradientOf(r, step), states[r]);
      compressor->decodeAdd(packet.bytes, expected[step]);
    }
    for (float& v : expected[step]) v /= static_cast<float>(p);
  }
  return expected;
}

class AggregateSim : public ::testing::TestWithParam<int> {};

TEST_P(AggregateSim, GatherEqualsDecodeEveryPacketAndSum) {
  const int p = GetParam();
  for (const char* spec : {"topk:0.01", "topk:0.02:exact,ef", "threshold:2.5", "dgc:0.01:warmup=1",
                           "qsgd:16", "terngrad"}) {
    std::vector<uint64_t> sent;
    const Results results = runAggregate(p, spec, &sent);
    const auto expected = decodeAndSum(p, spec);
    for (int step = 0; step < kSteps; ++step) {
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(results[step][r], expected[step]) << spec << " p=" << p << " rank " << r;
      }
    }
    if (std::string(spec) == "topk:0.01") {
      // Ring all-gather: every rank forwards p-1 packets of exactly 20 + 8k bytes.
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(sent[r], (p - 1) * sparsePacketBytes(keptCount(kLength, 0.01)));
      }
    }
  }
}

TEST_P(AggregateSim, SummableEqualsDecodeEveryPacketAndSum) {
  const int p = GetParam();
  // fp16/bf16 round partial sums to 16 bits at every hop, so they differ from
  // "decode and sum" by the wire's rounding: tests/compress_wire covers them.
  for (const char* spec : {"randomk:0.01", "randomk:0.05:scaled", "randomk:0.05,ef", "none"}) {
    std::vector<uint64_t> sent;
    const Results results = runAggregate(p, spec, &sent, AllreduceAlgorithm::kRecursiveDoubling);
    const auto expected = decodeAndSum(p, spec);
    for (int step = 0; step < kSteps; ++step) {
      for (int r = 0; r < p; ++r) {
        ASSERT_EQ(results[step][r].size(), kLength);
        for (size_t i = 0; i < kLength; ++i) {
          ASSERT_NEAR(results[step][r][i], expected[step][i],
                      1e-5f * (1 + std::fabs(expected[step][i])))
              << spec << " p=" << p << " rank " << r << " i=" << i;
        }
      }
    }
    if (std::string(spec) == "randomk:0.01") {
      // Only the k values travel: far less than the n floats of "none".
      for (int r = 0; r < p; ++r) EXPECT_LT(sent[r], 8 * 4 * keptCount(kLength, 0.01) * 4);
    }
  }
}

// --- gTop-k: the definition of gtopk.h, written independently -------------

using Sparse = std::map<uint32_t, float>;

Sparse topKOf(const Sparse& s, size_t k) {
  if (s.size() <= k) return s;
  std::vector<std::pair<uint32_t, float>> entries(s.begin(), s.end());
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::fabs(a.second) > std::fabs(b.second);
  });
  entries.resize(k);
  return Sparse(entries.begin(), entries.end());
}

Sparse mergeOf(const Sparse& a, const Sparse& b, size_t k) {
  Sparse sum = a;
  for (const auto& [i, v] : b) {
    auto it = sum.find(i);
    if (it == sum.end()) {
      sum[i] = v;
    } else {
      it->second = it->second + v;
    }
  }
  return topKOf(sum, k);
}

TEST_P(AggregateSim, GlobalTopKEqualsTheTreeMergeDefinition) {
  const int p = GetParam();
  const double ratio = 0.02;
  const size_t k = keptCount(kLength, ratio);
  std::vector<uint64_t> sent;
  const Results results = runAggregate(p, fmt::format("gtopk:{}", ratio), &sent);
  // Every message holds exactly k entries: log2(q) exchanges, plus the fold
  // (ranks >= q) or the unfold (their partners r - q).
  const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  for (int r = 0; r < p; ++r) {
    const int messages = r >= q ? 1 : std::countr_zero(static_cast<unsigned>(q)) + (r + q < p);
    EXPECT_EQ(sent[r], messages * sparsePacketBytes(k)) << "p=" << p << " rank " << r;
  }
  std::vector<std::vector<float>> residual(p, std::vector<float>(kLength, 0.0f));
  for (int step = 0; step < kSteps; ++step) {
    std::vector<Sparse> local(p), s(p);
    std::vector<std::vector<float>> acc(p);
    for (int r = 0; r < p; ++r) {
      acc[r] = gradientOf(r, step);
      for (size_t i = 0; i < kLength; ++i) acc[r][i] += residual[r][i];
      Sparse all;
      for (size_t i = 0; i < kLength; ++i) all[static_cast<uint32_t>(i)] = acc[r][i];
      local[r] = s[r] = topKOf(all, k);
    }
    for (int r = q; r < p; ++r) s[r - q] = mergeOf(s[r - q], s[r], k);
    for (int mask = 1; mask < q; mask <<= 1) {
      std::vector<Sparse> next(s);
      for (int r = 0; r < q; ++r) next[r] = mergeOf(s[r], s[r ^ mask], k);
      s = next;
    }
    std::vector<float> expected(kLength, 0.0f);
    for (const auto& [i, v] : s[0]) expected[i] = v / static_cast<float>(p);
    EXPECT_EQ(s[0].size(), k);
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(results[step][r], expected) << "p=" << p << " step " << step << " rank " << r;
      residual[r] = acc[r];
      for (const auto& [i, v] : local[r]) {
        if (s[0].count(i)) residual[r][i] = 0;
      }
    }
  }
}

TEST_P(AggregateSim, MajorityVoteIsTheSignOfTheVotes) {
  const int p = GetParam();
  const Results results = runAggregate(p, "sign");
  for (int step = 0; step < kSteps; ++step) {
    std::vector<int> votes(kLength, 0);
    double scales = 0;
    for (int r = 0; r < p; ++r) {
      const std::vector<float> g = gradientOf(r, step);
      double l1 = 0;
      for (size_t i = 0; i < kLength; ++i) {
        votes[i] += std::signbit(g[i]) ? -1 : 1;
        l1 += std::fabs(g[i]);
      }
      scales += l1 / kLength;
    }
    for (int r = 0; r < p; ++r) {
      for (size_t i = 0; i < kLength; ++i) {
        const double expected = scales * ((votes[i] > 0) - (votes[i] < 0)) / p;
        ASSERT_NEAR(results[step][r][i], expected, 1e-5) << "p=" << p << " i=" << i;
      }
    }
  }
}

TEST_P(AggregateSim, PowerSgdIsExactOnLowRankAndConservesTheSignal) {
  const int p = GetParam();
  const size_t rows = 48, cols = 36, rank = 2;
  // Low rank: M_w = U_t V_wᵀ with U_t shared by the ranks (new every step)
  // and V_w fixed, so Σ_w M_w = U_t (Σ_w V_w)ᵀ has rank 2 and a fixed row
  // space, which the warm-started Q tracks.
  auto lowRank = [&](int r, int step) {
    const std::vector<float> u = testing::gaussian(rows * rank, 5 + step);
    const std::vector<float> v = testing::gaussian(cols * rank, 100 * r + 1);
    std::vector<float> m(rows * cols, 0.0f);
    for (size_t i = 0; i < rows; ++i)
      for (size_t j = 0; j < cols; ++j)
        for (size_t c = 0; c < rank; ++c) m[i * cols + j] += u[i * rank + c] * v[j * rank + c];
    return m;
  };
  for (bool full : {false, true}) {
    Results results(kSteps, std::vector<std::vector<float>>(p));
    // sent[step][rank] = M_w - residual_after (what this rank contributed).
    Results contributed(kSteps, std::vector<std::vector<float>>(p));
    launch(cluster(p), [&](Transport& transport) {
      CompressorPtr c = makeCompressor("powersgd:2");
      CompressorState state = freshState(transport.rank());
      state.shape = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
      for (int step = 0; step < kSteps; ++step) {
        std::vector<float> g = full ? testing::gaussian(rows * cols, 50 * transport.rank() + step)
                                    : lowRank(transport.rank(), step);
        std::vector<float> m = g;
        const std::vector<float>& before = state.buffer("residual", g.size());
        for (size_t i = 0; i < m.size(); ++i) m[i] += before[i];
        aggregate(transport, *c, g, state, {});
        const std::vector<float>& after = state.buffers.at("residual");
        for (size_t i = 0; i < m.size(); ++i) m[i] -= after[i];
        contributed[step][transport.rank()] = std::move(m);
        results[step][transport.rank()] = std::move(g);
      }
    });
    for (int step = 0; step < kSteps; ++step) {
      std::vector<double> sum(rows * cols, 0.0), truth(rows * cols, 0.0);
      for (int r = 0; r < p; ++r) {
        const std::vector<float> m = lowRank(r, step);
        for (size_t i = 0; i < sum.size(); ++i) {
          sum[i] += contributed[step][r][i];
          truth[i] += m[i];
        }
      }
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(results[step][r], results[step][0]) << "ranks disagree";
        double diff = 0, norm = 0, lowRankDiff = 0;
        for (size_t i = 0; i < sum.size(); ++i) {
          const double got = results[step][r][i] * p;
          diff += (got - sum[i]) * (got - sum[i]);
          norm += sum[i] * sum[i];
          lowRankDiff += (got - truth[i]) * (got - truth[i]);
        }
        EXPECT_LT(std::sqrt(diff / norm), 1e-5) << "conservation, full=" << full;
        if (!full) {
          EXPECT_LT(std::sqrt(lowRankDiff / norm), 1e-5) << "low-rank exactness, step " << step;
        }
      }
    }
  }
}

// Batched PowerSGD on a fused bucket [W1 48x36, b1 48, W2 24x40, b2 24]:
// exactly two all-reduces for the whole bucket (the biases ride in the P
// all-reduce), against six with one bucket per tensor, and exact when every
// rank's matrices share a rank-2 column space.
TEST_P(AggregateSim, FusedPowerSgdIsTwoAllreducesPerBucket) {
  const int p = GetParam();
  const std::vector<std::vector<int64_t>> layout = {{48, 36}, {48}, {24, 40}, {24}};
  const size_t count = 48 * 36 + 48 + 24 * 40 + 24;
  auto gradient = [&](int r) {
    std::vector<float> g(count);
    size_t offset = 0;
    for (const std::vector<int64_t>& shape : layout) {
      if (shape.size() == 2) {
        const size_t rows = shape[0], cols = shape[1];
        const std::vector<float> u = testing::gaussian(rows * 2, 7 + rows);
        const std::vector<float> v = testing::gaussian(cols * 2, 100 * r + cols);
        for (size_t i = 0; i < rows; ++i)
          for (size_t j = 0; j < cols; ++j)
            for (size_t c = 0; c < 2; ++c) g[offset + i * cols + j] += u[i * 2 + c] * v[j * 2 + c];
        offset += rows * cols;
      } else {
        const std::vector<float> b = testing::gaussian(shape[0], 300 * r + shape[0]);
        std::copy(b.begin(), b.end(), g.begin() + offset);
        offset += shape[0];
      }
    }
    return g;
  };
  std::vector<float> average(count, 0.0f);
  for (int r = 0; r < p; ++r) {
    const std::vector<float> g = gradient(r);
    for (size_t i = 0; i < count; ++i) average[i] += g[i] / float(p);
  }
  // messages[mode][rank]: 0 one ring all-reduce ("none"), 1 fused, 2 per tensor.
  std::vector<std::vector<uint64_t>> messages(3, std::vector<uint64_t>(p, 0));
  std::vector<std::vector<float>> fused(p);
  launch(cluster(p), [&](Transport& transport) {
    const int r = transport.rank();
    auto run = [&](const std::string& spec, CompressorState state, std::vector<float>& values) {
      const uint64_t before = transport.traffic().totalMessagesSent();
      aggregate(transport, *makeCompressor(spec), values, state, {});
      return transport.traffic().totalMessagesSent() - before;
    };
    std::vector<float> g = gradient(r);
    messages[0][r] = run("none", freshState(r), g);
    CompressorState bucket = freshState(r);
    bucket.layout = layout;
    fused[r] = gradient(r);
    messages[1][r] = run("powersgd:2", bucket, fused[r]);
    size_t offset = 0;
    for (const std::vector<int64_t>& shape : layout) {
      CompressorState tensor = freshState(r);
      tensor.shape = shape;
      const size_t n = shape.size() == 2 ? shape[0] * shape[1] : shape[0];
      std::vector<float> part(g.begin() + offset, g.begin() + offset + n);
      messages[2][r] += run("powersgd:2", tensor, part);
      offset += n;
    }
  });
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(messages[1][r], 2 * messages[0][r]) << "rank " << r;
    EXPECT_EQ(messages[2][r], 6 * messages[0][r]) << "rank " << r;
    EXPECT_EQ(fused[r], fused[0]) << "ranks disagree";
    double diff = 0, norm = 0;
    for (size_t i = 0; i < count; ++i) {
      diff += (double{fused[r][i]} - average[i]) * (double{fused[r][i]} - average[i]);
      norm += double{average[i]} * average[i];
    }
    EXPECT_LT(std::sqrt(diff / norm), 1e-5) << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, AggregateSim, ::testing::Values(4, 5, 6, 7, 8));

TEST(Aggregate, PayloadFreeSimulationRunsTheSparseProtocols) {
  for (const char* spec : {"topk:0.01", "gtopk:0.01", "powersgd:2", "randomk:0.01"}) {
    LaunchOptions options = cluster(6);
    options.payloadFree = true;
    std::vector<uint64_t> sent(6, 0);
    launch(options, [&](Transport& transport) {
      CompressorPtr c = makeCompressor(spec);
      CompressorState state = freshState(transport.rank());
      state.shape = {59, 99};  // a matrix for powersgd; ignored by the others
      std::vector<float> gradient = testing::gaussian(59 * 99, transport.rank());
      aggregate(transport, *c, gradient, state, {});
      sent[transport.rank()] = transport.traffic().totalBytesSent();
    });
    for (uint64_t bytes : sent) EXPECT_GT(bytes, 0u) << spec;
  }
}

}  // namespace
}  // namespace tetrad

namespace tetrad {
namespace {

// Custom protocols built on all-reduce use the run's algorithm, never a
// silent ring: native is refused on the simulator, so reaching it proves the
// option travels; tree and ring give the same sums.
TEST(Aggregate, PowerSgdUsesTheRunsAllreduceAlgorithm) {
  EXPECT_THROW(runAggregate(4, "powersgd:2", nullptr, AllreduceAlgorithm::kNative), Unsupported);
  const Results ring = runAggregate(4, "powersgd:2");
  const Results tree = runAggregate(4, "powersgd:2", nullptr, AllreduceAlgorithm::kTree);
  for (int step = 0; step < kSteps; ++step) {
    for (int r = 0; r < 4; ++r) {
      ASSERT_EQ(ring[step][r].size(), tree[step][r].size());
      for (size_t i = 0; i < ring[step][r].size(); ++i) {
        EXPECT_NEAR(ring[step][r][i], tree[step][r][i], 1e-5f * (1 + std::abs(ring[step][r][i])));
      }
    }
  }
}

}  // namespace
}  // namespace tetrad
