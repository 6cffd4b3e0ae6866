// The noise ratio fitted to a sweep: the one free constant of the iteration
// theory (iteration_theory.h), chosen so that its multipliers best match the
// ones a finished sweep measured (`tetrad advise --results DIR --map
// --noise-ratio fit`, docs/convergence.md "Fitting s").
//
// The theory's bounds are worst cases with s = σ²/(n·ε) unknown; s = 1
// makes every deviation from BSP cost several times
// more iterations than the survey measured (Local SGD H = 8: 8.2× predicted,
// 1.3× measured). Each method's measured multiplier (its iterations to
// target over BSP's, same workers) pins down s; the fit takes the s in
// [1e-3, 1e6] that minimises the mean squared log ratio predicted/measured
// over every covered method except the exact ones (none, fp16: multiplier 1
// at any s). A single constant, so the theory's shape still decides how each
// method scales with workers, ω, δ, H or the topology; fitted on one sweep
// it can be used on another (`--noise-ratio S`), which is the honest test.
//
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "tetrad/model/iteration_theory.h"

namespace tetrad::model {

struct MeasuredMultiplier {
  Method method;
  int workers = 0;
  double multiplier = 0;  // iterations to target / BSP's (finite, > 0)
  double momentum = 0;    // the runs' optimiser momentum (iteration_theory.h)
};

struct NoiseRatioFit {
  double noiseRatio = kUnitNoiseRatio;
  int points = 0;                 // methods the fit used
  double rmsLogError = 0;         // √mean (ln predicted − ln measured)² at the fit
  double rmsLogErrorAtOne = 0;    // the same at s = 1 (kUnitNoiseRatio)
};

// InvalidArgument when no point is usable (no covered, non-exact method with
// a finite measured multiplier).
NoiseRatioFit fitNoiseRatio(const std::vector<MeasuredMultiplier>& measured,
                            const CompressionErrorFunction& error);

// √mean (ln predicted − ln measured)² over the usable points at `noiseRatio`
// (NaN when none is usable).
double rmsLogError(const std::vector<MeasuredMultiplier>& measured, double noiseRatio,
                   const CompressionErrorFunction& error);

}  // namespace tetrad::model
