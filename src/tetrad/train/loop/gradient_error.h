// GradientErrorProbe: the run's compressor measured on this worker's own
// gradients — the ω (unbiased compressors) or δ (contractive ones) of the
// convergence bounds (docs/convergence.md, model/compression_error.h), on
// real data instead of the advisor's Gaussian vectors.
//
// At the iterations the worker loop chooses (the first, and the one before
// each evaluation), measure() encodes and decodes the gradient buffer's
// buckets once, with a fresh compressor state (no error-feedback residual:
// the inner compressor, which is what δ describes), before the exchange, and
// adds Σ‖C(g) − g‖² and Σ‖g‖². summary.json reports their quotient as
// `compression_error` (`tetrad advise --map` uses it for the advisor's
// iteration multipliers). The sums are part of the checkpoint, so a resumed
// run reports what the uninterrupted one does.
//
// Owned by rank 0's worker loop of a simulated run (the measurement costs
// wall time, which a real cluster would see as a late rank); never touches
// the exchange's own compressor states. Thread-safety: one thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/core/bytes.h"
#include "tetrad/sched/bucketing.h"

namespace tetrad::train {

class GradientErrorProbe {
 public:
  // Measurements are capped at kMaxSamples per run.
  static constexpr int64_t kMaxSamples = 64;

  GradientErrorProbe(const std::string& compressSpec, std::vector<BucketRange> buckets,
                     uint64_t seed);

  // False for a compressor that changes nothing (`none`).
  bool measures() const { return measures_; }
  // One draw on `gradients` (the flat gradient buffer) at `iteration`.
  void measure(std::span<const float> gradients, int64_t iteration);
  // Σ‖C(g) − g‖² / Σ‖g‖² over the measurements; -1 before any.
  double ratio() const;
  int64_t samples() const { return samples_; }

  ByteBuffer saveState() const;
  void loadState(ConstBytes state);

 private:
  CompressorPtr compressor_;
  std::vector<BucketRange> buckets_;
  uint64_t seed_ = 0;
  bool measures_ = false;
  double error_ = 0, norm_ = 0;
  int64_t samples_ = 0;
};

}  // namespace tetrad::train
