// Warm-up phases and post-local SGD's BSP phase priced one by one
// (warmup_cost.h): T̄ = (Σ_phases steps·T_phase + rest·T_final) / iterations.
#include "tetrad/model/warmup_cost.h"

#include <algorithm>
#include <cmath>

#include "tetrad/compress/registry.h"
#include "tetrad/sync/registry.h"

namespace tetrad::model {

namespace {

// The compressor's warm-up phases priced one by one over the first
// `iterations` (finite, > 0), the rest at the final packets: the total.
double warmupTotal(const Method& method, const ModelContext& context, double iterations) {
  const double final = predictMethod(method, context).seconds;
  const std::vector<Compressor::WarmupPhase> phases =
      makeCompressor(method.compress)->warmupPhases();
  if (phases.empty()) return final * iterations;
  double remaining = iterations, total = 0;
  for (const Compressor::WarmupPhase& phase : phases) {
    if (remaining <= 0) break;
    const double steps = std::min(remaining, double(phase.steps));
    Method stage = method;
    stage.compress = phase.spec;
    total += steps * predictMethod(stage, context).seconds;
    remaining -= steps;
  }
  total += std::max(0.0, remaining) * final;
  return total;
}

// Iterations of a model-averaging policy's BSP phase (post-local:T:H's
// first T; none for local:H) among the first `iterations`; -1 for a policy
// that does not average models. T in epochs without an epoch length
// resolves to 0, which prices like -1.
double postLocalBspIterations(const Method& method, const ModelContext& context,
                              double iterations) {
  const SyncPolicyPtr sync = makeSyncPolicy(method.sync, {context.stepsPerEpoch});
  if (!sync->averagesModels()) return -1;
  int64_t bsp = 0;
  while (double(bsp) < iterations && sync->at(bsp).reduceGradients) ++bsp;
  return double(bsp);
}

}  // namespace

double meanTimePerIteration(const Method& method, const ModelContext& context, double iterations) {
  if (!std::isfinite(iterations) || iterations <= 0) return predictMethod(method, context).seconds;
  const double bsp = postLocalBspIterations(method, context, iterations);
  if (bsp < 0) return warmupTotal(method, context, iterations) / iterations;
  Method first = method;
  first.sync = "bsp";
  double total = bsp > 0 ? warmupTotal(first, context, bsp) : 0;
  if (iterations > bsp) total += warmupTotal(method, context, iterations - bsp);
  return total / iterations;
}

}  // namespace tetrad::model
