// Helpers of the gossip tests that run on simulated clusters: star
// platforms, deterministic initial vectors, consensus distance and a record
// of every rank's vector after every step (SimGrid runs all ranks in this
// process, so ranks write their own slot and the test reads after launch()).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "tetrad/launch/launcher.h"

namespace tetrad::testing {

// A simulated star of p ranks (10 Gb/s, 25 us per message); contention-free
// (CM02 without cross traffic, so times follow the α–β model) when asked.
inline LaunchOptions gossipStar(int p, bool contentionFree = false, bool payloadFree = false) {
  LaunchOptions options;
  options.cluster = "sim:" + std::to_string(p) + "x10Gbps,25us";
  options.workers = p;
  options.timeoutSeconds = 60;
  options.payloadFree = payloadFree;
  if (contentionFree) options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  return options;
}

// Writes `text` to a file in the test's temporary folder; returns its path.
inline std::string writeTempFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "gossip_" + name;
  std::ofstream(path) << text;
  return path;
}

// Values in [1, 2), different on every rank and element.
inline std::vector<float> initialVector(int rank, size_t n) {
  std::vector<float> x(n);
  uint64_t state = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(rank + 1);
  for (size_t k = 0; k < n; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[k] = 1.0f + static_cast<float>(state >> 40) * 0x1p-24f;
  }
  return x;
}

// Element-wise mean over ranks, in double.
inline std::vector<double> meanOf(const std::vector<std::vector<float>>& xs) {
  std::vector<double> mean(xs.front().size(), 0.0);
  for (const std::vector<float>& x : xs) {
    for (size_t k = 0; k < x.size(); ++k) mean[k] += x[k];
  }
  for (double& v : mean) v /= static_cast<double>(xs.size());
  return mean;
}

// 1/p Σ_i ‖x_i - x̄‖², in double.
inline double consensusDistance(const std::vector<std::vector<float>>& xs) {
  const std::vector<double> mean = meanOf(xs);
  double sum = 0;
  for (const std::vector<float>& x : xs) {
    for (size_t k = 0; k < x.size(); ++k) sum += (x[k] - mean[k]) * (x[k] - mean[k]);
  }
  return sum / static_cast<double>(xs.size());
}

// history[step][rank]: the vector of `rank` after `step` steps (step 0: the
// initial vector).
using History = std::vector<std::vector<std::vector<float>>>;

inline History makeHistory(int steps, int p) {
  return History(static_cast<size_t>(steps + 1),
                 std::vector<std::vector<float>>(static_cast<size_t>(p)));
}

}  // namespace tetrad::testing
