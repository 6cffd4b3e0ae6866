// CommCost and its α–β factories (comm_cost.h).
//
// Ring all-reduce of b bytes on p ranks: 2(p−1)·α + 2(p−1)/p·b·β
// (reduce-scatter then all-gather, p−1 steps each, b/p bytes per step).
#include "tetrad/sched/comm_cost.h"

#include <cmath>
#include <utility>

#include "tetrad/core/error.h"

namespace tetrad::sched {

CommCost::CommCost(std::string name, Function seconds)
    : name_(std::move(name)), seconds_(std::move(seconds)) {
  TETRAD_CHECK(static_cast<bool>(seconds_), InvalidArgument,
               "communication cost '{}' has no cost function", name_);
}

double CommCost::seconds(uint64_t bytes) const {
  const double t = seconds_(bytes);
  TETRAD_CHECK(std::isfinite(t) && t >= 0, InvalidArgument,
               "communication cost '{}' of {} bytes is {} s (must be finite and >= 0)", name_,
               bytes, t);
  return t;
}

CommCost ringAllreduceCommCost(int p, double alpha, double beta) {
  TETRAD_CHECK(p >= 1, InvalidArgument, "ring all-reduce cost: world size must be >= 1, got {}", p);
  TETRAD_CHECK(std::isfinite(alpha) && alpha >= 0 && std::isfinite(beta) && beta >= 0,
               InvalidArgument, "ring all-reduce cost: need α >= 0 and β >= 0, got α={} β={}",
               alpha, beta);
  return CommCost(fmt::format("ring all-reduce p={} α={:g}s β={:g}s/B", p, alpha, beta),
                  [p, alpha, beta](uint64_t bytes) {
                    if (p == 1) return 0.0;
                    return 2.0 * (p - 1) * alpha +
                           2.0 * (p - 1) / p * static_cast<double>(bytes) * beta;
                  });
}

CommCost allreduceCommCost(AllreduceAlgorithm algorithm, int p, const CostParams& params,
                           WirePrecision wire) {
  TETRAD_CHECK(p >= 1, InvalidArgument, "all-reduce cost: world size must be >= 1, got {}", p);
  // Refuse an algorithm without a model now rather than at the first call.
  (void)allreduceCost(algorithm, p, 1, params, wire);
  return CommCost(fmt::format("{} all-reduce p={} α={:g}s β={:g}s/B wire={}", toString(algorithm),
                              p, params.alpha, params.beta, toString(wire)),
                  [algorithm, p, params, wire](uint64_t bytes) {
                    const size_t count = static_cast<size_t>((bytes + 3) / sizeof(float));
                    return allreduceCost(algorithm, p, count, params, wire);
                  });
}

}  // namespace tetrad::sched
