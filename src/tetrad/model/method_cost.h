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
//
// Flags: "costs accuracy: ..." for lossy compressors (biased or unbiased
// with extra variance; fp16/bf16 round only), Local SGD ("fewer
// averages"), ssp/asp ("staleness") and gossip ("neighbour averages");
// "not yet in tetrad train" for gossip. Points that train refuses
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
  bool inTrain = true;  // false: tetrad train does not run it yet (gossip)
};

using CodecFunction = std::function<CodecCost(const Compressor&, const Workload&)>;

struct ModelContext {
  Workload workload;
  NetworkModel network;
  ComputeTime compute;
  CodecFunction codec;
};

Prediction predictMethod(const Method& method, const ModelContext& context);

// The canonical spellings (as summary.json and labels use them); `method`
// unchanged when a part does not parse.
Method canonicalMethod(const Method& method);

// True for compressors that change the values beyond rounding.
bool lossyCompressor(const Compressor& compressor);

}  // namespace tetrad::model
