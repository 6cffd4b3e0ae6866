// Broadcast: the root's buffer is copied to every rank.
//
// Algorithms: binomial tree (⌈log2 p⌉ rounds of the whole message; best for
// small messages; broadcast_binomial.cc) and scatter + ring all-gather (van
// de Geijn: the root scatters p blocks down a binomial tree, then a ring
// all-gather completes them; ~2nβ instead of log2(p)·nβ, best for large
// messages; broadcast_scatter_allgather.cc). Every rank must call with the
// same size, root, algorithm and tag; tags [tag, tag + kCollectiveTagSpan)
// are used. A size that differs from the root's is a ProtocolError.
//
// Thread-safety: one call at a time per (transport, tag range).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/core/bytes.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

enum class BroadcastAlgorithm {
  kBinomial,          // binomial tree of whole messages
  kScatterAllgather,  // binomial scatter + ring all-gather
};

struct BroadcastOptions {
  BroadcastAlgorithm algorithm = BroadcastAlgorithm::kBinomial;
  int root = 0;
  Tag tag = 400;
};

void broadcast(Transport& transport, MutableBytes data, const BroadcastOptions& options = {});
void broadcast(Transport& transport, std::span<float> data, const BroadcastOptions& options = {});

// "binomial" (or "tree"), "scatter-allgather".
BroadcastAlgorithm parseBroadcastAlgorithm(std::string_view name);
std::string toString(BroadcastAlgorithm algorithm);

}  // namespace tetrad
