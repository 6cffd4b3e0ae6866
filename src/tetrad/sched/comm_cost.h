// CommCost: what one message of the gradient exchange costs on a cluster.
//
// The schedulers and the pipeline model see the network only through this
// callable: seconds(b) is the time to exchange one message of b bytes per
// rank among the cluster's p ranks (an all-reduce, a parameter-server push
// and pull, ...), so any architecture's cost can be plugged in. The factories
// below bind p and the α–β parameters:
//
//   ringAllreduceCommCost   the closed form of the ring all-reduce,
//                           2(p−1)·α + 2(p−1)/p·b·β
//   allreduceCommCost       the step-by-step model of collectives/
//                           collective_cost.h (exact block sizes, any
//                           all-reduce algorithm, fp16/bf16 wire)
//
// startupSeconds() = seconds(0) is the start-up latency a message pays
// whatever its size (2(p−1)·α for the ring); MG-WFBP merges to save it.
//
// A CommCost is an immutable value; seconds() may be called from any thread
// as long as the function it wraps is thread-safe (all factories here are).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tetrad/collectives/collective_cost.h"

namespace tetrad::sched {

class CommCost {
 public:
  using Function = std::function<double(uint64_t bytes)>;

  // `name` describes the cost in messages and tables ("ring p=8 ...").
  // Throws InvalidArgument when `seconds` is empty.
  CommCost(std::string name, Function seconds);

  // Throws InvalidArgument if the function returns a negative or non-finite
  // time.
  double seconds(uint64_t bytes) const;
  double startupSeconds() const { return seconds(0); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  Function seconds_;
};

// 2(p−1)·α + 2(p−1)/p·b·β (0 when p = 1). Throws InvalidArgument unless
// p >= 1, α >= 0 and β >= 0.
CommCost ringAllreduceCommCost(int p, double alpha, double beta);

// allreduceCost() of collective_cost.h for ⌈b/4⌉ floats per rank.
// Throws InvalidArgument unless p >= 1; Unsupported for kNative.
CommCost allreduceCommCost(AllreduceAlgorithm algorithm, int p, const CostParams& params,
                           WirePrecision wire = WirePrecision::kFloat32);

}  // namespace tetrad::sched
