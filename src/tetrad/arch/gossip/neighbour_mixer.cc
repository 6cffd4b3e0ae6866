// D-PSGD gossip averaging (Lian et al. 2017): one exchange with every
// neighbour, then a weighted sum.
//
// Cost of one step at rank i with degree d_i and n bytes per vector, on a
// star (each rank one full-duplex link to a non-blocking switch): all d_i
// sends and receives are posted at once, so the latencies overlap and the
// d_i messages share the rank's link in each direction:
//   T = α + max_i d_i · n·β            (+ (d_i + 1)·n/4 multiply-adds)
// The serial bound, sends one after the other, is d·(α + nβ). Bytes sent
// per rank and step: exactly d_i·n (no header). docs/gossip.md derives both.
//
// Order of summation: over the closed neighbourhood N_i ∪ {i} by ascending
// rank id, out = w_{j0}·x_{j0}, out += w_{j1}·x_{j1}, ... in float32 with
// float32 weights. On the complete graph (uniform weights 1/n) every rank
// therefore computes the same expression on the same inputs: the result is
// bit-identical on all ranks and in every run.
#include "tetrad/arch/gossip/neighbour_mixer.h"

#include <memory>
#include <string>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/collectives/scratch.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace detail {

void weightedSum(std::span<const float> weights, std::span<const float* const> sources,
                 std::span<float> out) {
  const size_t n = out.size();
  float* dst = out.data();
  {
    const float w = weights[0];
    const float* src = sources[0];
    for (size_t k = 0; k < n; ++k) dst[k] = w * src[k];
  }
  for (size_t m = 1; m < sources.size(); ++m) {
    const float w = weights[m];
    const float* src = sources[m];
    for (size_t k = 0; k < n; ++k) dst[k] += w * src[k];
  }
}

void mixStep(Transport& transport, const Topology& topology, int64_t step, std::span<float> x,
             std::span<const std::span<float>> received, std::span<float> mixed,
             const GossipOptions& options) {
  const int rank = transport.rank();
  TETRAD_CHECK(topology.size() == transport.size(), InvalidArgument,
               "topology '{}' has {} ranks, the world {}", topology.spec(), topology.size(),
               transport.size());
  checkGossipTag(options.tag, "gossip mix");
  const std::span<const int> peers = topology.neighbours(rank, step);
  if (peers.empty()) return;  // a world of one: w_ii = 1
  const bool compute = computesOnData(transport);
  if (compute) {
    TETRAD_CHECK(received.size() >= peers.size() && mixed.size() == x.size(), InvalidArgument,
                 "gossip mix: {} receive buffers for {} neighbours", received.size(), peers.size());
  }
  std::vector<RequestPtr> requests;
  requests.reserve(2 * peers.size());
  for (size_t k = 0; k < peers.size(); ++k) {
    // Payload-free: nothing is written, so every receive may target x.
    std::span<float> into = compute ? received[k].first(x.size()) : x;
    requests.push_back(transport.irecv(peers[k], options.tag, asWritableBytes(into)));
  }
  for (int peer : peers) {
    requests.push_back(transport.isend(peer, options.tag, asBytes(std::span<const float>(x))));
  }
  waitAll(requests);
  if (!compute) return;
  const std::vector<MixingWeight> row = topology.mixingRow(rank, step);
  std::vector<float> weights;
  std::vector<const float*> sources;
  size_t next = 0;  // index into peers / received
  for (const MixingWeight& m : row) {
    weights.push_back(static_cast<float>(m.weight));
    sources.push_back(m.rank == rank ? x.data() : received[next++].data());
  }
  weightedSum(weights, sources, mixed);
  std::copy(mixed.begin(), mixed.end(), x.begin());
}

}  // namespace detail

namespace {

std::string mixContext(const Transport& transport, const Topology& topology, int64_t step,
                       size_t count) {
  return fmt::format("gossip mix on '{}' (rank {}, step {}, {} floats)", topology.spec(),
                     transport.rank(), step, count);
}

}  // namespace

void NeighbourMixer::mix(Transport& transport, const Topology& topology, int64_t step,
                         std::span<float> x, const GossipOptions& options) {
  detail::runWithContext(
      [&] {
        std::vector<std::span<float>> views;
        if (computesOnData(transport)) {
          const size_t degree = topology.neighbours(transport.rank(), step).size();
          if (received_.size() < degree) received_.resize(degree);
          for (size_t k = 0; k < degree; ++k) {
            if (received_[k].size() < x.size()) received_[k].resize(x.size());
            views.emplace_back(received_[k]);
          }
          if (mixed_.size() != x.size()) mixed_.resize(x.size());
        }
        detail::mixStep(transport, topology, step, x, views,
                        std::span<float>(mixed_).first(views.empty() ? 0 : x.size()), options);
      },
      [&] { return mixContext(transport, topology, step, x.size()); });
}

void mixWithNeighbours(Transport& transport, const Topology& topology, int64_t step,
                       std::span<float> x, const GossipOptions& options) {
  detail::runWithContext(
      [&] {
        std::vector<std::unique_ptr<detail::Scratch>> scratch;
        std::vector<std::span<float>> views;
        const bool compute = computesOnData(transport);
        const size_t degree = compute ? topology.neighbours(transport.rank(), step).size() + 1 : 0;
        for (size_t k = 0; k < degree; ++k) {  // the last one is the output
          scratch.push_back(std::make_unique<detail::Scratch>(x.size()));
          views.push_back(scratch.back()->span());
        }
        std::span<float> mixed = compute ? views.back() : std::span<float>();
        detail::mixStep(transport, topology, step, x,
                        std::span<const std::span<float>>(views).first(compute ? degree - 1 : 0),
                        mixed, options);
      },
      [&] { return mixContext(transport, topology, step, x.size()); });
}

}  // namespace tetrad
