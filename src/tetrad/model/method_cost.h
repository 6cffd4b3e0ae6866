// Predicted time per iteration of one method — a point (sync, arch,
// compress) with sched "none" — on a workload and a cluster, with the
// one-line derivation that produced it and the accuracy caveats it carries.
//
// Composition (per iteration, seconds; C = compute, E = encode, D = decode
// of one packet per tensor, X = one exchange: exchange_cost.h, ps_cost.h):
//
//   bsp, allreduce or ps   T = C + E + d·D + X      d: packets decoded per
//                                                   tensor (p for gather)
//   local:H, post-local    T = C + (E + d·D + X)/H  (steady state after T)
//   ssp:S, asp on ps       T = max(C + E + d·D + round trip, busiest link)
//                          (ps_cost.h; no stragglers, so no SSP waits)
//   bsp on gossip:TOPO     T = C + α + d_max·4n·β   (D-PSGD, one neighbour
//                          average per step; arch/gossip/gossip_cost.h)
//   + G per iteration      with ModelContext::nonFiniteGuard (tetrad train's
//                          default --on-nonfinite stop) on every method but
//                          ssp/asp: the guard's recursive-doubling all-gather
//                          of one float, G = ⌈log2 p⌉·α + 4(p−1)·β (+2α when
//                          p is not a power of two; train/loop/nonfinite_guard.h)
//
// Flags: "costs accuracy: ..." for lossy compressors (biased or unbiased
// with extra variance; fp16/bf16 round only), Local SGD ("fewer
// averages"), ssp/asp ("staleness") and gossip ("neighbour averages").
// Points that train refuses
// (docs/sync.md's rules, arch/registry.h checkCombination) are refused
// here with the same InvalidArgument.
//
// Codec costs come from the caller (codec_cost.h: measured or nominal), so
// a ranking measures each compressor once. Pure apart from that callback;
// call from one thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/model/codec_cost.h"
#include "tetrad/model/network_model.h"
#include "tetrad/model/workload.h"

namespace tetrad::model {

struct Method {
  std::string sync = "bsp";
  std::string arch = "allreduce:ring";  // allreduce:ALGO, ps[:K][:colocated], gossip:TOPO
  std::string compress = "none";
  std::string label() const;  // "bsp allreduce:ring topk:0.01,ef"
};

struct Prediction {
  Method method;  // canonical spellings
  double seconds = 0;
  double computeSeconds = 0;
  double codecSeconds = 0;  // per iteration (divided by H under Local SGD)
  double commSeconds = 0;   // per iteration (divided by H under Local SGD)
  std::string derivation;   // "= compute 47.10 + codec ... + comm ... [ring ...]"
  std::vector<std::string> flags;
};

using CodecFunction = std::function<CodecCost(const Compressor&, const Workload&)>;

struct ModelContext {
  Workload workload;
  NetworkModel network;
  ComputeTime compute;
  CodecFunction codec;
  // True: charge the non-finite guard's one-float all-gather per iteration,
  // as tetrad train does unless --on-nonfinite off (push-pull methods check
  // locally and pay nothing).
  bool nonFiniteGuard = false;
  // Iterations per epoch, where known (0: not): resolves post-local:Tep:H's
  // switch for meanTimePerIteration() (warmup_cost.h).
  int64_t stepsPerEpoch = 0;
};

Prediction predictMethod(const Method& method, const ModelContext& context);

// G: the guard's all-gather of one float among the network's workers.
double nonFiniteGuardSeconds(const NetworkModel& network);

// The canonical spellings (as summary.json and labels use them); `method`
// unchanged when a part does not parse.
Method canonicalMethod(const Method& method);

// True for compressors that change the values beyond rounding.
bool lossyCompressor(const Compressor& compressor);

}  // namespace tetrad::model
