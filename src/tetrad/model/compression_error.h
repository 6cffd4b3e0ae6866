// Compression error: how far one worker's decoded packet lies from the vector
// it encodes, measured with the real compressor (compress/registry.h) — the
// constant ω (unbiased compressors) or δ (contractive ones, with error
// feedback) that the convergence bounds of docs/convergence.md take.
//
//   ratio = Σ ‖C(x) − x‖² / Σ ‖x‖²     over the draws (and the buckets)
//   unbiased compressor:    ω = ratio      (E‖C(x) − x‖² ≤ ω‖x‖²)
//   contractive compressor: δ = 1 − ratio  (E‖C(x) − x‖² ≤ (1 − δ)‖x‖²)
//
// One draw is one encode() and one decodeAdd() of the vector with a fresh
// CompressorState whose seed is the draw's (so randomised compressors —
// QSGD, TernGrad, natural, Random-k, PowerSGD's initial Q — draw fresh
// randomness) and whose error-feedback residual is empty: with ",ef" or a
// built-in error feedback (onebit, efsign, PowerSGD) a draw measures the
// inner compressor, which is what δ describes.
//
// measureWorkloadError() runs it on synthetic i.i.d. Gaussian vectors in
// the sizes and shapes of the fused buckets that the time model uses
// (exchange_cost.h): src/tetrad/model has no LibTorch. Real gradients are
// measured by the training loop, which hands its own gradient buffer and
// bucket plan to measureBucketError() (train/loop/gradient_error.h records the
// result in summary.json; `tetrad advise --map` prefers it). Models larger
// than kErrorMeasureElements floats are measured on their first buckets up
// to that many floats, in both.
//
// Deterministic for a given seed; pure apart from the compressor's work;
// thread-safe (nothing shared).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/model/workload.h"
#include "tetrad/sched/bucketing.h"

namespace tetrad::model {

inline constexpr uint64_t kErrorMeasureElements = uint64_t{1} << 23;
inline constexpr int kErrorDraws = 3;

struct CompressionError {
  double ratio = 0;          // Σ‖C(x) − x‖² / Σ‖x‖²
  double standardError = 0;  // of the mean of the per-draw ratios (0 for one draw)
  int draws = 0;
  uint64_t elements = 0;  // floats encoded per draw
};

// `draws` (>= 1) draws of one vector `x` of `shape` (empty: flat), seeds
// seed, seed + 1, ... Throws InvalidArgument when x is empty or zero.
CompressionError measureCompressionError(const Compressor& compressor, std::span<const float> x,
                                         const std::vector<int64_t>& shape, int draws,
                                         uint64_t seed = 1);

// On Gaussian vectors of the workload's buckets (see above).
CompressionError measureWorkloadError(const Compressor& compressor, const Workload& workload,
                                      int draws = kErrorDraws);

// One draw (seed `seed`) over `buckets` of the flat vector `values` (the
// first up to kErrorMeasureElements floats, as above), each bucket with its
// shape and layout: the sums Σ‖C(x) − x‖² and Σ‖x‖² (to add up over
// iterations; their quotient is the ratio). A zero vector adds nothing.
struct ErrorSums {
  double error = 0;
  double norm = 0;
  uint64_t elements = 0;  // floats encoded
};
ErrorSums measureBucketError(const Compressor& compressor, std::span<const float> values,
                             std::vector<BucketRange> buckets, uint64_t seed);

// `count` i.i.d. standard normal floats from `seed` (Box–Muller over
// SplitMix64): the same values on every platform.
std::vector<float> gaussianVector(size_t count, uint64_t seed);

}  // namespace tetrad::model
