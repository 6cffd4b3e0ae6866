// α–β cost of the parameter server (arch/ps/) on a star: K shards,
// dedicated (extra hosts) or colocated (inside workers 0..K−1), each
// worker pushing every partition through the compressor and pulling the
// sum (bsp, local) or the weights (ssp, asp) uncompressed.
//
// Partitions are those of arch/ps/partition_plan.h (tensors cut into pieces
// of at most 4 MiB, spread over the shards by bytes). Bytes of partition i
// of c_i floats: push_i = 16 + P(c_i) (request header + packet), pull_i =
// 24 + 16 + 4·c_i (reply header + a "none" packet). With Push = Σ push_i,
// Pull = Σ pull_i and push_s, pull_s the sums over shard s's partitions:
//
//   dedicated:  T = α + max(Push, max_s W·push_s)·β      (worker up, shard down)
//                 + α + max(Pull, max_s W·pull_s)·β      (shard up, worker down)
//   colocated:  worker w with shard s(w) (none: 0) sends Push − push_s(w) and
//               its shard receives (W−1)·push_s(w), likewise for the pull:
//               T = α + max_w max(Push − push_s(w), (W−1)·push_s(w))·β
//                 + α + max_w max((W−1)·pull_s(w), Pull − pull_s(w))·β
//
// That is docs/algorithms.md's 2α + 2·max(n, W·n/K)·β (dedicated) and
// 2α + 2(W−1)/W·n·β (colocated, K = W) with headers and compression. Push
// and pull are charged one after the other (a shard replies once it has
// every worker's push). Latencies do not all overlap: a shard and a worker
// each post one receive per peer, so a worker's partitions for one shard
// travel one after another, and so do the replies. A shard holding m_s of a
// bucket's partitions ends after max(m_s·α + α, …) plus its link's bytes,
// buckets one after another, and T is at least
//   Σ_buckets max_s [(m_s + 1)·α + W·(push_s + pull_s)·β]
// (dedicated; W − 1 flows colocated). It decides where latency dominates:
// the mlp on ps:2 (one shard holds fc1.weight, the other the 5 small
// tensors) measured 6.6α per iteration in timing-only runs at 1–10 ms, the
// chain's 6α, where the two phases alone give 2α.
// Each shard decodes W pushes of its partitions: decodeFactor = W · (the
// largest shard's share of the model).
//
// ssp/asp (no barrier): a worker's step is its own push and pull,
//   T_step = compute + codec + 2α + (its link's push and pull bytes)·β
//   (at least its chain, (m_s + 1)·α + the shard's share of its bytes),
// but the busiest link must carry one iteration of all W workers' traffic:
//   T = max(T_step, busiest link bytes · β).
//
// Pure functions; thread-safe.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/model/exchange_cost.h"
#include "tetrad/model/network_model.h"
#include "tetrad/model/workload.h"

namespace tetrad::model {

inline constexpr uint64_t kPsPartitionBytes = uint64_t{4} << 20;

struct PsEstimate {
  ExchangeEstimate exchange;    // one synchronous push + pull (bsp, local)
  double roundTripSeconds = 0;  // ssp/asp: one worker's push and pull, alone
  double linkBoundSeconds = 0;  // ssp/asp: the busiest link's bytes per iteration · β
};

// `shards` K >= 1 (colocated: K <= W). InvalidArgument when the model has
// fewer partitions than shards (as the trainer refuses it).
PsEstimate psExchange(int shards, bool colocated, const Compressor& compressor,
                      const Workload& workload, const NetworkModel& network);

}  // namespace tetrad::model
