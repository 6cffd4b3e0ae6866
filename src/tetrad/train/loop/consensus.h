// Consensus of decentralized training: how far the workers' models are from
// their average, and the average itself (gossip, docs/gossip.md).
//
//   consensusDistance  (1/n) Σ_i ‖x_i − x̄‖² over the n workers
//   averageModel       x̄ = (1/n) Σ_i x_i, on every worker
// Both are collectives over the workers' transport (every worker calls them
// with the same length and tag); the worker loop brackets them as
// evaluation, so they count neither as training time nor as traffic.
//
// Thread-safety: called by one rank's worker.
#pragma once

#include <span>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

// Tags used from options.tag: [tag, tag + kConsensusTagSpan).
constexpr Tag kConsensusTagSpan = 2 * kCollectiveTagSpan;

std::vector<float> averageModel(Transport& workers, std::span<const float> params,
                                const AllreduceOptions& options);
double consensusDistance(Transport& workers, std::span<const float> params,
                         const AllreduceOptions& options);

}  // namespace tetrad::train
