// AD-PSGD (Lian et al. 2018): asynchronous decentralized SGD, the point
// `--sync asp --arch gossip:TOPO`. No step waits for the whole world: after
// each local optimizer step a worker averages its model pairwise with one
// neighbour of the topology drawn at random (seeded per rank; on a time-
// varying topology among that step's neighbours), while its passive task
// (adpsgd_passive.h, started with Transport::spawn: an actor under SimGrid,
// a thread under MPI) answers the neighbours' requests beside the compute.
//
// The worker loop calls pushPull(update, params) once per local step (sync
// push-pull mode, train/loop/rank_trainer.cc); `update` is not used, `params` is
// averaged in place. One call:
//   1. tick: one 9-byte message to the step counter on rank 0 (a part of
//      rank 0's passive task) and its reply: the number of local steps of
//      all workers counted so far and whether the run's limit (iterations ×
//      W, as the parameter server's asp counts work) is reached;
//   2. boundary: absorb the averages served since the last step and publish
//      x as the model the passive task answers with (adpsgd_passive.h: the
//      passive side never touches the LibTorch parameter memory);
//   3. average: send x to the chosen neighbour, receive its served model s
//      (as of its last boundary, plus averages since), x <- (x + s)/2; the
//      partner applies the opposite change at its next boundary.
// Staleness of one averaging (summary.json's histogram): the local steps of
// all workers counted between the partner's snapshot and this averaging,
// max(0, c_i − c_j) with c the counter's value at each side's boundary.
//
// Deadlock: a worker waits only for a neighbour's passive task and for the
// counter, and a passive task waits for nothing but requests, so no cycle
// of waits exists on any graph — odd rings included; the bipartite
// active/passive split of the paper is not needed (docs/gossip.md).
// Termination: the counter answers stop; each worker then sends kDone to
// every rank it may have sent to (its neighbours and rank 0) and joins its
// passive task, which ends once all ranks that may send to it are done;
// finish() then adds the averages served after the last step to the
// parameters last given to pushPull() (they must still be alive), so no
// averaging is lost and the final models sum as the gradient steps say.
// finish() is idempotent.
//
// Accepts only the identity compressor (checkCombination refuses others)
// and messages with payloads (not --payload-free).
//
// Thread-safety: one per rank, called by its worker; see adpsgd_passive.h.
#pragma once

#include <string>

#include "tetrad/arch/exchange.h"

namespace tetrad {

ExchangePtr makeAdpsgdExchange(const std::string& topology, const ExchangeContext& context);

}  // namespace tetrad
