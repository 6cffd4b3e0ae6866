// accum:K — gradient accumulation: each worker computes K micro-batches,
// adds their gradients locally, and takes one optimizer step on their mean,
// after one exchange of that mean (BSP's exchange, K times rarer). With a
// loss that is a batch mean this is BSP with a K times larger per-worker
// batch: the same samples and steps, the activation memory of one
// micro-batch (the reason it exists), and the exchanges of that BSP run.
//
// An iteration is one micro-batch: --iterations, --eval-every, the epoch and
// the learning-rate schedule count micro-batches; the step at the run's last
// iteration uses what has accumulated (fewer than K when the count is not a
// multiple). The gradients accumulated between steps are the loop's one
// piece of state for it (gradient_accumulator.h), and travel in checkpoints.
//
// Created from a spec string by sync/registry.h. Thread-safety: immutable
// after construction; any thread may call.
#pragma once

#include "tetrad/core/spec.h"
#include "tetrad/sync/sync_policy.h"

namespace tetrad {

SyncPolicyPtr makeAccumulate(const SpecParams& params, const SyncContext& context);

}  // namespace tetrad
