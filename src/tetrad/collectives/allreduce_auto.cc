// allreduce:auto (allreduce_auto.h): per message, the candidate with the
// lowest α–β time; its cost is therefore min over the candidates of their
// cost lines (allreduce_ring.cc, allreduce_recursive_doubling.cc,
// allreduce_rabenseifner.cc, allreduce_tree.cc, allreduce_hierarchical.cc).
#include "tetrad/collectives/allreduce_auto.h"

#include <algorithm>

#include "tetrad/core/error.h"

namespace tetrad {

AllreduceSelector::AllreduceSelector(int ranks, CostParams params, std::string source)
    : ranks_(ranks), params_(std::move(params)), source_(std::move(source)) {
  TETRAD_CHECK(ranks >= 1, InvalidArgument, "allreduce:auto: {} ranks (need at least 1)", ranks);
  if (params_.ranksPerNode > 1 && params_.ranksPerNode < ranks) {
    candidates_ = {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kHierarchical};
  } else {
    candidates_ = {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
                   AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree};
  }
}

AllreduceSelector::Choice AllreduceSelector::best(size_t count, WirePrecision wire) const {
  Choice best{candidates_.front(),
              allreduceCost(candidates_.front(), ranks_, count, params_, wire)};
  for (size_t i = 1; i < candidates_.size(); ++i) {
    const double seconds = allreduceCost(candidates_[i], ranks_, count, params_, wire);
    // Faster by more than the margin: closer is a tie (allreduce_auto.h).
    if (seconds < best.seconds * (1 - kAutoSwitchMargin)) best = {candidates_[i], seconds};
  }
  return best;
}

AllreduceAlgorithm AllreduceSelector::choose(size_t count, WirePrecision wire) const {
  return best(count, wire).algorithm;
}

double AllreduceSelector::predictedSeconds(size_t count, WirePrecision wire) const {
  return best(count, wire).seconds;
}

AllreduceAlgorithm AllreduceSelector::record(size_t count, WirePrecision wire) const {
  const Choice choice = best(count, wire);
  const AllreduceAlgorithm algorithm = choice.algorithm;
  const std::lock_guard<std::mutex> lock(mutex_);
  for (AllreduceSelection& s : recorded_) {
    if (s.count == count && s.wire == wire) {
      ++s.calls;
      return algorithm;
    }
  }
  recorded_.push_back({count, wire, algorithm, choice.seconds, 1});
  return algorithm;
}

std::vector<AllreduceSelection> AllreduceSelector::selections() const {
  std::vector<AllreduceSelection> copy;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    copy = recorded_;
  }
  std::sort(copy.begin(), copy.end(), [](const auto& a, const auto& b) {
    return a.count != b.count ? a.count < b.count : int(a.wire) < int(b.wire);
  });
  return copy;
}

size_t autoSwitchCount(const AllreduceSelector& selector) {
  const auto bandwidthBound = [&](size_t count) {
    const AllreduceAlgorithm a = selector.choose(count);
    return a == AllreduceAlgorithm::kRing || a == AllreduceAlgorithm::kHierarchical ||
           a == AllreduceAlgorithm::kRabenseifner;
  };
  if (bandwidthBound(1)) return 0;
  size_t low = 1, high = size_t{1} << 40;  // low latency-bound, high not (or the cap)
  if (!bandwidthBound(high)) return high;
  while (high - low > 1) {
    const size_t mid = low + (high - low) / 2;
    (bandwidthBound(mid) ? high : low) = mid;
  }
  return low;
}

}  // namespace tetrad
