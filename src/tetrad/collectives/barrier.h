// Barrier: no rank returns before every rank has entered.
//
// Dissemination algorithm (Hensgen, Finkel and Manber 1988): in round k
// each rank sends an empty message to rank + 2^k and receives one from
// rank - 2^k (mod p); after ⌈log2 p⌉ rounds every rank has heard, directly
// or transitively, from every other. Cost: ⌈log2 p⌉·α, any p.
// Uses tags [tag, tag + kCollectiveTagSpan); a silent rank makes the others
// fail with the transport's TimeoutError.
//
// Thread-safety: one call at a time per (transport, tag range).
#pragma once

#include "tetrad/collectives/collective_options.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

void barrier(Transport& transport, const CollectiveOptions& options = {});

}  // namespace tetrad
