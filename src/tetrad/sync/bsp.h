// bsp: bulk synchronous parallel. Every iteration the gradients of all
// workers are averaged before the optimizer step; every replica stays equal.
#pragma once

#include "tetrad/core/spec.h"
#include "tetrad/sync/sync_policy.h"

namespace tetrad {

SyncPolicyPtr makeBsp(const SpecParams& params, const SyncContext& context);

}  // namespace tetrad
