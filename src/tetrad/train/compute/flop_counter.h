// FlopCounter: the FLOPs of the convolutions and matrix products LibTorch
// runs on this thread while the counter lives, observed through ATen's
// RecordFunction callbacks (the hooks PyTorch's profiler uses), so it counts
// what any module really computes — a TorchScript model's as well as a
// built-in one's.
//
// Counting rule (the one train/compute/models.cc uses for its own models): 2 FLOPs
// per multiply-add of
//   aten::conv1d/2d/3d, convolution, _convolution   2 · out.numel() · (weight.numel() /
//   out_channels) aten::conv_transpose1d/2d/3d                     2 · in.numel()  ·
//   (weight.numel() / in_channels) aten::linear                                     2 · out.numel()
//   · in_features aten::addmm, mm, bmm, matmul, baddbmm            2 · out.numel() · inner
//   dimension
// Batch norm, activations, pooling and element-wise ops are not counted.
// Only the outermost counted op of a call chain counts (aten::linear calls
// aten::addmm, aten::conv2d calls aten::convolution: one count each).
//
// Thread-safety: a counter observes the thread that created it; one counter
// per thread at a time (a second one on the same thread throws).
#pragma once

#include <cstdint>

namespace tetrad::train {

class FlopCounter {
 public:
  FlopCounter();
  ~FlopCounter();
  FlopCounter(const FlopCounter&) = delete;
  FlopCounter& operator=(const FlopCounter&) = delete;

  // FLOPs counted so far on this thread.
  double flops() const;
  // Counted ops so far (for tests and statements such as "no convolution or
  // matrix product ran").
  int64_t ops() const;

 private:
  uint64_t handle_ = 0;
};

}  // namespace tetrad::train
