// Measurement of `tetrad bench collectives` (see bench_collectives_run.h).
//
// Cost per timed iteration: one barrier and the all-reduce under test; per
// cell, one allgatherv of (iters + 1) doubles per rank to agree on the
// slowest rank's times and the error count, plus O(n) local verification.
#include "bench_collectives_run.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/barrier.h"
#include "tetrad/core/bytes.h"

namespace tetrad::app::bench_collectives {
namespace {

// Rank r's element i in iteration k: (r mod 4 + 1) · ((i + k) mod 7 + 1).
// Sums over up to ~950,000 ranks stay below 2^24, so every float32 order
// gives the exact sum; up to ~3,700 ranks they stay finite in fp16.
float inputValue(int rank, size_t i, int iteration) {
  return static_cast<float>((rank % 4 + 1) * static_cast<int>((i + iteration) % 7 + 1));
}

// The exact result, and how far a correct result may be from it.
struct Expected {
  float value = 0;
  float tolerance = 0;
};

Expected expectedValue(int p, size_t i, int iteration, const BenchPlan& plan) {
  const int64_t rankFactors = int64_t{10} * (p / 4) + (p % 4) * (p % 4 + 1) / 2;  // Σ r%4+1
  Expected e;
  e.value = static_cast<float>(rankFactors * static_cast<int64_t>((i + iteration) % 7 + 1));
  if (plan.op == ReduceOp::kAverage) e.value /= static_cast<float>(p);
  if (plan.wire != WirePrecision::kFloat32) {
    const double u = plan.wire == WirePrecision::kFloat16 ? 0x1p-11 : 0x1p-8;
    e.tolerance = static_cast<float>(2.0 * p * u * e.value);  // the inputs are positive
  }
  return e;
}

}  // namespace

Measurement measure(Transport& t, const BenchPlan& plan, AllreduceAlgorithm algorithm,
                    const AllreduceSelector* selector, std::span<float> data) {
  const bool verify = t.carriesPayload();
  const int p = t.size();
  std::vector<double> times;
  double wrong = 0;
  for (int k = -plan.warmup; k < plan.iters; ++k) {
    if (verify) {
      for (size_t i = 0; i < data.size(); ++i) data[i] = inputValue(t.rank(), i, k);
    }
    barrier(t, CollectiveOptions{900});
    const double start = t.now();
    allreduce(t, data, AllreduceOptions{algorithm, plan.op, 100, plan.wire, selector});
    const double elapsed = t.now() - start;
    if (k < 0) continue;
    times.push_back(elapsed);
    if (verify) {
      for (size_t i = 0; i < data.size(); ++i) {
        const Expected e = expectedValue(p, i, k, plan);
        if (!(std::abs(data[i] - e.value) <= e.tolerance)) ++wrong;
      }
    }
  }
  // Every rank's times and error count, so that all agree on the slowest.
  // Payload-free messages carry no numbers: rank 0's own times are shown.
  times.push_back(wrong);
  std::vector<double> all(times.size() * p, 0.0);
  if (verify) {
    allgathervBytes(t, asBytes(std::span<const double>(times)), asWritableBytes(std::span(all)),
                    std::vector<size_t>(p, times.size() * sizeof(double)), AllgatherOptions{});
  } else {
    std::copy(times.begin(), times.end(), all.begin() + t.rank() * times.size());
  }
  Measurement m;
  std::vector<double> slowest(static_cast<size_t>(plan.iters), 0.0);
  for (int r = 0; r < p; ++r) {
    const double* mine = all.data() + r * times.size();
    for (int k = 0; k < plan.iters; ++k) slowest[k] = std::max(slowest[k], mine[k]);
    m.wrong += static_cast<uint64_t>(mine[plan.iters]);
  }
  std::nth_element(slowest.begin(), slowest.begin() + plan.iters / 2, slowest.end());
  m.seconds = slowest[plan.iters / 2];
  return m;
}

}  // namespace tetrad::app::bench_collectives
