// The advisor: ranks candidate methods by predicted time per iteration
// (method_cost.h) and prints the ranking, one line per method with its
// derivation and accuracy flags; or by predicted time to target = time per
// iteration × iteration multiplier (iteration_theory.h, docs/convergence.md),
// methods without a theory after the others, by time per iteration.
//
// candidateMethods() is the default set, every point of it one that
// `tetrad train` accepts (docs/sync.md):
//   bsp × allreduce:{ring, rabenseifner, tree, hierarchical} × {none, fp16,
//       qsgd:16, terngrad, topk:0.01,ef, randomk:0.01,ef, dgc:0.001,
//       powersgd:2, sign, efsign}
//   bsp × {ps:K, ps:colocated} × {none, fp16, topk:0.01,ef}
//   local:4, local:16 on allreduce:ring, none
//   ssp:4, asp on ps:K, none
//   bsp on gossip:ring, gossip:exp, none (D-PSGD)
//
// Thread-safety: call from one thread (codec measurements).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tetrad/model/iteration_theory.h"
#include "tetrad/model/method_cost.h"

namespace tetrad::model {

// `psShards` K of ps:K (>= 1).
std::vector<Method> candidateMethods(int psShards);

struct Ranking {
  std::vector<Prediction> ranked;    // fastest first (ties: candidate order)
  std::vector<std::string> skipped;  // "label: why" for refused points
};

// Predicts every method; a method the rules or the model refuse
// (InvalidArgument, Unsupported) is listed in `skipped`.
Ranking rankMethods(const std::vector<Method>& methods, const ModelContext& context);

// Measured accuracy penalty of a method: mean over clusters of its final
// accuracy minus the cluster baseline's (validation.h).
struct AccuracyPenalty {
  double mean = 0;
  int clusters = 0;
};
using PenaltyTable = std::map<std::string, AccuracyPenalty>;  // by Method::label()

// One line per prediction:
//   "  3     61.520 ms  bsp allreduce:ring topk:0.01,ef   = compute ... [flags]"
// The second field is the prediction in ms (tests parse it).
std::vector<std::string> formatRanking(const Ranking& ranking, const PenaltyTable& penalties);

// Time to target, in units of BSP's iterations: a method's time per
// iteration × its iteration multiplier.
struct TargetPrediction {
  Prediction perIteration;
  IterationEstimate iterations;
  // perIteration.seconds × iterations.multiplier when covered, else
  // perIteration.seconds (no multiplier to apply).
  double seconds = 0;
};

struct TargetRanking {
  std::vector<TargetPrediction> covered;    // by seconds, fastest first
  std::vector<TargetPrediction> uncovered;  // no theory: by time per iteration
  std::vector<std::string> skipped;         // as Ranking::skipped
};

// The multipliers of `ranking`'s methods on `workers` workers at noise
// ratio `noiseRatio` with optimiser momentum `momentum`
// (iteration_theory.h), ω and δ from `error`.
TargetRanking rankByTimeToTarget(const Ranking& ranking, int workers, double noiseRatio,
                                 double momentum, const CompressionErrorFunction& error);

// One line per method, covered ones first, ranks running on:
//   "  1      52.216 ms  bsp allreduce:ring none  = 52.216 ms/iter × 1 iterations
//    [BSP: 1; Ghadimi & Lan 2013, Cor. 2.2]; per iteration compute ... [! flags]"
// (the second field is the time to target in ms per BSP iteration; tests
// parse it). Before the first uncovered method, kNoTheoryHeader; their
// second field is their time per iteration and their multiplier "?".
inline constexpr const char* kNoTheoryHeader =
    "# no convergence theory (docs/convergence.md): ranked by time per iteration only; "
    "with --results, by measured iterations to target";
std::vector<std::string> formatTargetRanking(const TargetRanking& ranking,
                                             const PenaltyTable& penalties);

}  // namespace tetrad::model
