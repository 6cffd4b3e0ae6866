// D-PSGD's gossip averaging over a Transport: every rank replaces its vector
// by the weighted average of its own and its neighbours' vectors,
//   x_i <- Σ_{j ∈ N_i ∪ {i}} w_ij x_j,
// with the graph and the weights of `step` in `topology` (topology.h).
// Every rank of the world calls it at the same step with the same topology,
// the same length and the same options; cost and order of summation are in
// neighbour_mixer.cc and docs/gossip.md.
//
// NeighbourMixer owns the receive and output buffers and reuses them across
// calls (one per neighbour slot, grown on demand), so a training loop pays
// no allocation or page faults per step: keep one per rank and per
// concurrent exchange. mixWithNeighbours() is the same step with buffers
// borrowed from the collectives' scratch pool (collectives/scratch.h).
//
// Payload-free simulation (Transport::carriesPayload() false): the messages
// travel with their sizes, nothing is computed and `x` is left unchanged.
//
// Errors from peers (a different length: ProtocolError; a silent peer:
// TimeoutError after the transport's timeout) are rethrown with the
// exchange, this rank, the step and the length prepended.
//
// Thread-safety: a NeighbourMixer is used by one rank's worker (or one
// communication task) at a time; the Topology may be shared.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tetrad/arch/gossip/gossip_options.h"
#include "tetrad/arch/gossip/topology.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

class NeighbourMixer {
 public:
  // One averaging step in place on `x` (see the header comment).
  void mix(Transport& transport, const Topology& topology, int64_t step, std::span<float> x,
           const GossipOptions& options = {});

 private:
  std::vector<std::vector<float>> received_;  // one per neighbour slot
  std::vector<float> mixed_;
};

// The same step with pooled scratch buffers.
void mixWithNeighbours(Transport& transport, const Topology& topology, int64_t step,
                       std::span<float> x, const GossipOptions& options = {});

namespace detail {

// The step itself, on caller-provided buffers: `received` holds at least
// one span of x.size() floats per neighbour at `step`, `mixed` x.size()
// floats (both unused when the transport carries no payload).
void mixStep(Transport& transport, const Topology& topology, int64_t step, std::span<float> x,
             std::span<const std::span<float>> received, std::span<float> mixed,
             const GossipOptions& options);

// out[k] <- Σ_m w_m·source_m[k], m ascending (the closed neighbourhood in rank
// order): out = w_0·s_0, then out += w_m·s_m, rounded to float at each
// operation.
void weightedSum(std::span<const float> weights, std::span<const float* const> sources,
                 std::span<float> out);

}  // namespace detail
}  // namespace tetrad
