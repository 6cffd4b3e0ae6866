// ssp:S and asp — relaxed synchronisation through parameter servers.
//
// asp (asynchronous parallel, Hogwild!/Downpour style): a worker pushes its
// update and pulls the latest weights, never waiting for other workers.
// ssp:S (stale-synchronous parallel, Ho et al. 2013, as in Petuum/Bösen): as
// asp, but a worker at clock c (c updates pushed) may compute only on weights
// that contain every worker's first c − S updates; its pull blocks until the
// slowest worker has pushed that many. ssp:0 is BSP; the staleness of every
// applied update is at most S. The servers enforce the bound (arch/ps).
#pragma once

#include "tetrad/core/spec.h"
#include "tetrad/sync/sync_policy.h"

namespace tetrad {

SyncPolicyPtr makeSsp(const SpecParams& params, const SyncContext& context);
SyncPolicyPtr makeAsp(const SpecParams& params, const SyncContext& context);

}  // namespace tetrad
