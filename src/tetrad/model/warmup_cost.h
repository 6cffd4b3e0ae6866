// The cost model's time per iteration averaged over a run's first
// iterations, for compressors whose packets shrink during a warm-up (DGC:
// 25%, 6.25%, 1.6%, 0.4%, then 0.1% density; Compressor::warmupPhases()).
//
// predictMethod() prices a method at its compressor's final packets; over
// the ~300 iterations a survey run takes to its target, DGC with four
// 59-step stages spends 236 of them at 4–250× the final bytes, so its time
// per iteration to target is up to 25× the final one on a slow network
// (measured: the map's advisor picked DGC in 5 of 8 MLP cells before this).
// Here each warm-up phase is priced as its own spec ("dgc:0.251") for the
// iterations it covers, the rest at the final packets, and the total divided
// by `iterations`.
//
// Post-local SGD (post-local:T:H) is BSP for its first T iterations: those
// are priced as BSP, the rest at Local SGD's steady state (T in epochs needs
// ModelContext::stepsPerEpoch; without it every iteration is priced at the
// steady state).
//
// Pure function; thread-safe as predictMethod().
#pragma once

#include "tetrad/model/method_cost.h"

namespace tetrad::model {

// Seconds per iteration over the first `iterations` (> 0) iterations; the
// final packets' time when the compressor has no warm-up or `iterations` is
// not finite. Throws as predictMethod().
double meanTimePerIteration(const Method& method, const ModelContext& context, double iterations);

}  // namespace tetrad::model
