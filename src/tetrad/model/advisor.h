// The advisor: ranks candidate methods by predicted time per iteration
// (method_cost.h) and prints the ranking, one line per method with its
// derivation and accuracy flags.
//
// candidateMethods() is the default set, every point of it one that
// `tetrad train` accepts today (docs/sync.md), plus gossip D-PSGD marked
// "not yet in tetrad train":
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

}  // namespace tetrad::model
