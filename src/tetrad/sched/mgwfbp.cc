// MG-WFBP: the paper's greedy merge rule and the exact DP optimum (mgwfbp.h).
//
// α–β cost on the channel (ring all-reduce, k buckets of B_j bytes on p
// ranks): Σ_j [2(p−1)·α + 2(p−1)/p·B_j·β].
#include "tetrad/sched/mgwfbp.h"

#include <algorithm>
#include <limits>

#include "tetrad/core/error.h"
#include "tetrad/sched/plan_params.h"

namespace tetrad::sched {

SchedulePlan mgwfbpGreedyPlan(std::span<const TensorSlot> slots, const CommCost& cost) {
  checkSlots(slots);
  const std::vector<double> ready = slotReadyTimes(slots);
  const double startup = cost.startupSeconds();
  SchedulePlan plan;
  plan.name = "mgwfbp:greedy";
  double channelFree = 0;
  Bucket open{0, 1, slots[0].bytes};
  for (size_t i = 1; i < slots.size(); ++i) {
    const double start = std::max(ready[i - 1], channelFree);
    const double end = start + cost.seconds(open.bytes);
    if (ready[i] < end && ready[i] - start < startup) {
      ++open.count;
      open.bytes += slots[i].bytes;
      continue;
    }
    plan.buckets.push_back(open);
    channelFree = end;
    open = Bucket{i, 1, slots[i].bytes};
  }
  plan.buckets.push_back(open);
  return plan;
}

SchedulePlan mgwfbpOptimalPlan(std::span<const TensorSlot> slots, const CommCost& cost) {
  checkSlots(slots);
  const size_t n = slots.size();
  const std::vector<double> ready = slotReadyTimes(slots);
  std::vector<uint64_t> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + slots[i].bytes;
  // end[j]: earliest end of an exchange of slots [0, j); from[j]: where the
  // last bucket of that plan starts.
  std::vector<double> end(n + 1, 0);
  std::vector<size_t> from(n + 1, 0);
  for (size_t j = 1; j <= n; ++j) {
    end[j] = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < j; ++i) {
      const double t = std::max(ready[j - 1], end[i]) + cost.seconds(prefix[j] - prefix[i]);
      if (t < end[j]) {
        end[j] = t;
        from[j] = i;
      }
    }
  }
  SchedulePlan plan;
  plan.name = "mgwfbp:optimal";
  for (size_t j = n; j > 0; j = from[j]) {
    plan.buckets.push_back({from[j], j - from[j], prefix[j] - prefix[from[j]]});
  }
  std::reverse(plan.buckets.begin(), plan.buckets.end());
  return plan;
}

double bucketsFinishSeconds(std::span<const TensorSlot> slots, std::span<const Bucket> buckets,
                            const CommCost& cost) {
  const std::vector<double> ready = slotReadyTimes(slots);
  double channelFree = 0;
  for (const Bucket& b : buckets) {
    TETRAD_CHECK(b.count > 0 && b.first + b.count <= ready.size(), InvalidArgument,
                 "bucket of slots [{}, {}) is outside the {} tensor slots", b.first,
                 b.first + b.count, ready.size());
    channelFree = std::max(ready[b.first + b.count - 1], channelFree) + cost.seconds(b.bytes);
  }
  return channelFree;
}

PlanFunction mgwfbpPlanOf(const SchedulePlanSpec& spec) {
  expectPlanParams(spec, 1);
  const std::string method = spec.params.empty() ? "greedy" : spec.params[0];
  if (method == "greedy") {
    return [](std::span<const TensorSlot> slots, const CommCost& cost) {
      return mgwfbpGreedyPlan(slots, cost);
    };
  }
  if (method == "optimal") {
    return [](std::span<const TensorSlot> slots, const CommCost& cost) {
      return mgwfbpOptimalPlan(slots, cost);
    };
  }
  failPlanSpec(spec, fmt::format("merge rule must be 'greedy' or 'optimal', got '{}'", method));
}

}  // namespace tetrad::sched
