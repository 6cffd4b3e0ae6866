// gossip:TOPO — decentralized training: no server and no global collective;
// each worker mixes its model with its neighbours in a graph (topology.h).
//
//   --gossip dpsgd        D-PSGD (Lian et al. 2017): x_i <- Σ_j w_ij x_j with
//                         the full models (neighbour_mixer.h); only the
//                         identity compressor (a lossy one does not converge:
//                         the rule points to CHOCO).
//   --gossip choco:GAMMA  CHOCO-SGD (Koloskova et al. 2019): public copies x̂,
//                         compressed differences with any compressor, and
//                         the consensus step γ (choco_gossip.h).
//
// The worker loop calls mixModels() after the optimizer step (adapt, then
// combine): every iteration under bsp (D-PSGD), every H iterations under
// local:H. mixesModels() is true; average() is refused.
#pragma once

#include "tetrad/arch/exchange.h"

namespace tetrad {

ExchangePtr makeGossipExchange(const std::string& topology, const ExchangeContext& context);

// Checks "dpsgd" or "choco:GAMMA" (GAMMA in (0, 1]); returns γ (0 for dpsgd).
double parseGossipMode(const std::string& mode);

}  // namespace tetrad
