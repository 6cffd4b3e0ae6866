// SyncPolicy: *when* a worker exchanges, and what it waits for — the "sync"
// dimension of the taxonomy (bsp, ssp:S, asp, local:H, post-local:T:H).
//
// A policy is a pure schedule. For synchronous policies at(iteration) says
// what the worker loop does around its optimizer step:
//   reduceGradients  average the gradients over all workers before the step
//                    (BSP; through the architecture and the compressor);
//   averageModels    after the step, average the models over all workers
//                    (Local SGD at the end of each period of H steps: what
//                    travels is the model change since the last average);
//   step             false: no step, no exchange — the iteration is a
//                    micro-batch whose gradient the loop adds to the ones
//                    since the last step (accum:K); the next step uses
//                    their mean (sync/gradient_accumulator.h).
// Stale-synchronous and asynchronous policies (mode() kPushPull) do
// neither: each worker pushes its own update to the parameter servers and
// pulls the latest weights, and the servers block a pull only as far as the
// bound says (arch/ps). The architecture checks it can serve the policy.
//
// Created from a spec string by sync/registry.h. Thread-safety: immutable
// after construction; any thread may call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tetrad {

struct SyncPoint {
  bool reduceGradients = true;
  bool averageModels = false;
  bool step = true;
};

// What a policy may need to know about the run when it is built.
struct SyncContext {
  int64_t stepsPerEpoch = 0;    // 0: not known yet (configuration checks only)
  int64_t totalIterations = 0;  // the run's last iteration + 1 (0: not known)
  // The iteration count at which a number of epochs is complete, where the
  // epochs are not all of stepsPerEpoch iterations (a resize that changed
  // the global batch, train/data/batch_plan.h); empty: epochs x stepsPerEpoch.
  std::function<int64_t(int64_t epochs)> iterationsForEpochs = {};
};

// Staleness bound of an asynchronous policy (ASP): no bound.
constexpr int64_t kUnboundedStaleness = -1;

enum class SyncMode {
  kCollective,  // all workers exchange together, as at() says (bsp, local, post-local)
  kPushPull,    // each worker pushes updates and pulls weights on its own (ssp, asp)
};

class SyncPolicy {
 public:
  virtual ~SyncPolicy() = default;

  // Canonical spec, e.g. "ssp:2", "post-local:2ep:4".
  virtual std::string spec() const = 0;
  // Synchronous policies: what happens at `iteration` (0-based).
  virtual SyncPoint at(int64_t iteration) const = 0;
  virtual SyncMode mode() const { return SyncMode::kCollective; }
  // kPushPull only: S for ssp:S (0 is BSP), kUnboundedStaleness for asp.
  virtual int64_t stalenessBound() const { return 0; }
  // True when some iteration averages models (Local SGD): the worker keeps
  // an anchor copy of the parameters.
  virtual bool averagesModels() const { return false; }
  // The steady state's iterations per exchange (H of local:H and
  // post-local:T:H; 1 for every other policy): the cost model divides an
  // exchange by it and the convergence theory reads it (model/).
  virtual int64_t averagingPeriod() const { return 1; }
  // Iterations (micro-batches) whose mean gradient one optimizer step uses:
  // K of accum:K, 1 for every other policy. The convergence theory reads it
  // as mini-batch SGD with a K times larger batch (model/iteration_theory).
  virtual int64_t microBatchesPerStep() const { return 1; }
};

using SyncPolicyPtr = std::unique_ptr<SyncPolicy>;

}  // namespace tetrad
