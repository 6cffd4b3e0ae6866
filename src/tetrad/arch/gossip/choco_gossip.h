// CHOCO-SGD's compressed gossip step (Koloskova, Stich and Jaggi, ICML 2019,
// Algorithm 1 "CHOCO-Gossip"), over a Transport and any tetrad Compressor.
//
// Every rank i keeps public copies x̂_j of itself and of each neighbour j:
// estimates of x_j that all of j's neighbours hold identically, because they
// are built only from what j sent. One step, after the local SGD update:
//   q_i   = Q(x_i - x̂_i)                    compressor.encode(), one packet
//   send q_i to every neighbour, receive q_j from each
//   x̂_j  += decode(q_j)   for j ∈ N_i ∪ {i}
//   x_i   += γ · Σ_{j ∈ N_i} w_ij (x̂_j - x̂_i)
// with the mixing weights of the (static) topology and a consensus step
// size γ in (0, 1]. Only compressed differences travel; x̂ starts at 0 as in
// the paper. With the identity compressor (`none`) and γ = 1 a step equals
// D-PSGD's averaging (neighbour_mixer.h) up to float rounding. CHOCO needs a
// contractive compressor (E‖Q(x) - x‖² <= (1 - δ)‖x‖² for some δ > 0, e.g.
// topk, sign) and a γ small enough for it (about δ or less); unbiased
// rescaled compressors (qsgd, randomk, terngrad) are not contractive and
// diverge unless γ is tiny. docs/gossip.md has measured consensus curves.
// Error feedback (",ef") is not needed: x - x̂ already carries the
// compression error forward.
//
// State: everything a rank remembers between steps is in ChocoState (its
// public copies, the compressor's CompressorState, the step count), owned by
// the caller and serializable for checkpoints.
//
// Time-varying topologies (exp:one-peer) are refused (Unsupported): a rank
// would have to keep every peer's x̂ current while not hearing from it.
// Payload-free simulation: the packet is encoded (its real size travels),
// received packets are not decoded, and x and the public copies stay as
// they are.
//
// Thread-safety: one call at a time per ChocoState; every rank calls once
// per step with the same topology, length, compressor and options.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tetrad/arch/gossip/gossip_options.h"
#include "tetrad/arch/gossip/topology.h"
#include "tetrad/compress/compressor.h"
#include "tetrad/core/bytes.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

struct ChocoOptions {
  double gamma = 1.0;  // consensus step size γ in (0, 1]
  GossipOptions gossip;
  // Where the encode and the d_i + 1 decodes are charged (codec_clock.h).
  CodecClock* codec = nullptr;
};

struct ChocoState {
  int rank = -1;
  // The closed neighbourhood N_i ∪ {i}, ascending, and x̂_j for each.
  std::vector<int> ranks;
  std::vector<std::vector<float>> publicCopies;
  CompressorState compressor;
  int64_t steps = 0;  // gossip steps done

  size_t count() const { return publicCopies.empty() ? 0 : publicCopies.front().size(); }
  // x̂ of `peer` (a member of `ranks`); throws InvalidArgument otherwise.
  std::span<const float> publicCopy(int peer) const;

  ByteBuffer serialize() const;
  static ChocoState deserialize(ConstBytes bytes);  // throws ProtocolError
};

// The state of `rank` for vectors of `count` floats: x̂ = 0 everywhere; the
// compressor state gets `seed` and `rank` (compressor.h).
ChocoState makeChocoState(const Topology& topology, int rank, size_t count, uint64_t seed = 0);

// One CHOCO gossip step in place on `x` (see the header comment). Throws
// InvalidArgument for γ outside (0, 1] or a state that does not match the
// topology, the rank or x's length; Unsupported for a time-varying topology.
void chocoGossipStep(Transport& transport, const Topology& topology, std::span<float> x,
                     const Compressor& compressor, ChocoState& state,
                     const ChocoOptions& options = {});

}  // namespace tetrad
