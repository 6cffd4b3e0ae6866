// AllreduceSelector: `allreduce:auto`, the all-reduce algorithm chosen per
// message, as NCCL's tuner and Open MPI's tuned component choose theirs.
//
// For a vector of `count` elements on a `wire`, choose() returns the
// candidate algorithm with the lowest predicted time under the run's network
// (collective_cost.h: α–β per step, per-size factors and the TCP window of
// a calibrated or named network model). Candidates:
//   one rank per node (a star)   ring, rd, rabenseifner, tree
//   two-level (ranksPerNode > 1) ring, hierarchical — the algorithms whose
//                                cost is exact there (the others send
//                                several flows through one node uplink at
//                                once, which the α–β model does not see).
// A candidate replaces an earlier one in that order only when it is
// predicted faster by more than kAutoSwitchMargin (2%): closer than that is
// a tie, since the α–β model's own error is larger (docs/fidelity.md), and
// the ring is what real networks run best (no contention, every link busy).
// So small vectors go to recursive doubling or the tree (latency ⌈log2 p⌉·α
// instead of 2(p−1)·α), middle ones may go to Rabenseifner (its 2·log2 p
// latencies), and large ones stay on the ring, whose bandwidth term
// 2(p−1)/p·n·β Rabenseifner only equals on a contention-free star.
//
// allreduce() with AllreduceAlgorithm::kAuto asks options.selector, runs the
// chosen algorithm (so the result is bit-identical to it) and records the
// choice: selections() lists, per (count, wire), the algorithm and how many
// calls took it, for summary.json and `tetrad bench collectives`.
//
// Every rank must hold a selector built from the same values (the choice is
// a pure function of them), so all ranks run the same algorithm.
//
// Owned by the caller (the run's rank set-up); it must outlive every call
// that names it. choose() is pure; record() and selections() take a mutex
// that is never held across a message, so any thread or actor may call them.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/collective_cost.h"

namespace tetrad {

inline constexpr double kAutoSwitchMargin = 0.02;

struct AllreduceSelection {
  size_t count = 0;  // elements per rank
  WirePrecision wire = WirePrecision::kFloat32;
  AllreduceAlgorithm algorithm = AllreduceAlgorithm::kRing;
  double predictedSeconds = 0;
  uint64_t calls = 0;
};

class AllreduceSelector {
 public:
  // `ranks`: p; `source` names where `params` came from ("cluster
  // sim:10Gbps,25us, cm02", "profile FILE", "measured α–β").
  AllreduceSelector(int ranks, CostParams params, std::string source);

  int ranks() const { return ranks_; }
  const CostParams& params() const { return params_; }
  const std::string& source() const { return source_; }
  const std::vector<AllreduceAlgorithm>& candidates() const { return candidates_; }

  // The candidate with the lowest predicted time (pure).
  AllreduceAlgorithm choose(size_t count, WirePrecision wire = WirePrecision::kFloat32) const;
  double predictedSeconds(size_t count, WirePrecision wire = WirePrecision::kFloat32) const;
  // choose() and count the call (allreduce() does this).
  AllreduceAlgorithm record(size_t count, WirePrecision wire) const;
  // Every (count, wire) recorded so far, by count.
  std::vector<AllreduceSelection> selections() const;

 private:
  struct Choice {
    AllreduceAlgorithm algorithm;
    double seconds;
  };
  // The candidate choose() returns, with its predicted time.
  Choice best(size_t count, WirePrecision wire) const;

  int ranks_;
  CostParams params_;
  std::string source_;
  std::vector<AllreduceAlgorithm> candidates_;
  mutable std::mutex mutex_;
  mutable std::vector<AllreduceSelection> recorded_;
};

// The largest count (elements, float32 wire) for which choose() picks a
// latency-bound algorithm (rd or tree), by bisection: the switch point that
// `tetrad bench collectives` prints. 0 when a bandwidth-bound one (ring,
// rabenseifner, hierarchical) wins from one element on.
size_t autoSwitchCount(const AllreduceSelector& selector);

}  // namespace tetrad
