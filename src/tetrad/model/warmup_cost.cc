// Warm-up phases priced one by one (warmup_cost.h).
#include "tetrad/model/warmup_cost.h"

#include <algorithm>
#include <cmath>

#include "tetrad/compress/registry.h"

namespace tetrad::model {

double meanTimePerIteration(const Method& method, const ModelContext& context, double iterations) {
  const double final = predictMethod(method, context).seconds;
  const std::vector<Compressor::WarmupPhase> phases =
      makeCompressor(method.compress)->warmupPhases();
  if (phases.empty() || !std::isfinite(iterations) || iterations <= 0) return final;
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
  return total / iterations;
}

}  // namespace tetrad::model
