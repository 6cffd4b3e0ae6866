// Workload: what one worker computes and exchanges per iteration, as the
// cost models see it — the parameter tensors (element counts and shapes, in
// parameter order) and the compute time of one forward/backward pass.
//
// From a model name the tensors and forward FLOPs come from the layer tables
// of sched/model_shapes.h (mlp, cnn, resnet20; no LibTorch). From a bare
// parameter count (--params 25M) the model is one tensor of N elements,
// viewed as a near-square matrix, with an estimated 2·N forward FLOPs per
// sample (one multiply-add per weight, as for dense layers; convolutions
// reuse weights and do more).
//
// Compute time per iteration:
//   fixed (--compute DUR)     that duration;
//   FLOP-based (--gflops X)   3 · forwardFlops · batch / (X · 1e9)
//                             (backward = 2 × forward; activations and the
//                             optimizer step left out).
//
// Pure functions; plain values; thread-safe.
#pragma once

#include "tetrad/core/parameter_count.h"
#include "tetrad/sched/fusion.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tetrad::model {

// tetrad train's --bucket-size auto: DDP's 25 MiB cap, for every compressor
// (one definition: sched/fusion.h).
inline constexpr uint64_t kFusedBucketBytes = sched::kDdpBucketBytes;

struct TensorShape {
  uint64_t elements = 0;
  std::vector<int64_t> shape;  // LibTorch shape; [n] for a vector
};

struct Workload {
  std::string name;  // "cnn", or "25M parameters"
  std::vector<TensorShape> tensors;
  uint64_t parameters = 0;
  double forwardFlopsPerSample = 0;
  bool estimatedFlops = false;  // true for --params (2·N per sample)
  // The buckets the gradient is exchanged in (--bucket-size): consecutive
  // tensors fused up to this many bytes; 0: one bucket per tensor.
  uint64_t bucketBytes = kFusedBucketBytes;
};

// "mlp", "cnn" or "resnet20"; InvalidArgument naming the known models.
Workload modelWorkload(std::string_view model);
// One tensor of `parameters` elements; InvalidArgument when 0.
Workload parameterWorkload(uint64_t parameters);

struct ComputeTime {
  double seconds = 0;
  std::string text;  // how it was obtained, for the derivation line
};

// Exactly one of fixedSeconds >= 0 or gflops > 0 is used: fixedSeconds
// when >= 0, else the FLOP model. InvalidArgument on a non-positive speed
// or batch.
ComputeTime computeTime(const Workload& workload, int batch, double fixedSeconds, double gflops);

}  // namespace tetrad::model
