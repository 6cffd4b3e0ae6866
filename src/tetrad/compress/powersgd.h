// PowerSGD (Vogels, Karimireddy, Jaggi; NeurIPS 2019): rank-R compression of
// a gradient matrix by one step of subspace (power) iteration, with warm
// start and built-in error feedback.
//
// A tensor of shape [d0, d1, ...] is viewed as the matrix M of n = d0 rows
// and m = d1·d2·... columns (row-major). Per step (aggregateCustom):
//   M  <- gradient + residual                    (error feedback)
//   P  <- M Q            (n×R);  all-reduce P (sum);  P <- Gram-Schmidt(P)
//   Qw <- Mᵀ P           (m×R);  residual <- M - P Qwᵀ
//   Q  <- all-reduce Qw (sum)
//   gradient <- P Qᵀ  (= Σ_w P Qwᵀ, the sum of every rank's decoded tensor)
// Q is kept in state.buffers["q"] (stored transposed, R×m: row c is column c
// of Q) as the warm start of the next step; the first Q is drawn from
// N(0, 1) with state.seed (identical on every rank).
// Gram-Schmidt: columns in order, each made orthogonal to the previous ones
// and normalised; a column of norm < 1e-12 (after projection) becomes zero.
// Tensors that are vectors (shape rank < 2) or too small to gain ((n + m)·R
// >= n·m) travel uncompressed (no residual). If R > min(n, m) the rank is
// min(n, m).
// If every rank's M has rank <= R, P spans the column space of ΣM, so the
// result is exactly ΣM (up to rounding) at every step.
//
// Fused buckets (state.layout, compress/compressor.h): each tensor of the
// bucket keeps its own matrix, rank-R factors, warm start and residual, as in
// the paper, but the bucket exchanges all its P factors in one all-reduce
// and all its Q factors in another: two all-reduces per bucket, not two per
// tensor. The uncompressed tensors of the bucket ride in the P all-reduce,
// after the factors (one fewer latency term than an all-reduce of their
// own; a bucket with no compressible matrix is one plain all-reduce).
// Q factors lie one after another in state.buffers["q"] (each transposed,
// R×m), drawn from one N(0, 1) stream, so a bucket of one matrix equals the
// per-tensor compressor bit for bit.
// "powersgd:R:batched" is PyTorch DDP's batched variant: the whole bucket,
// zero-padded, is one square matrix of side s = ⌈√c⌉ (compressed when
// 2·s·R < c), whatever tensors it holds; cheaper to compute, blind to the
// tensors' structure.
//
// Spec: "powersgd:R[:batched]", R integer in [1, 1024]. Aggregation: custom,
// two all-reduces (the run's algorithm) of Σ n·R (+ uncompressed) and Σ m·R
// floats on tags [tag, tag+16) and [tag+16, tag+32); cost
// 2·allreduce((n+m)·R·4 bytes) per matrix instead of n·m·4.
// encode()/decodeAdd() alone (packet kind kPowerSgd): header (flags bit 0:
// batched) + u32 part count, per part u32 n, u32 m, u32 r, then per part P
// (n×r row-major) and Qᵀ (r×m row-major) as floats, or, for r = 0, its n·m
// raw floats. Parts cover the vector in order (batched: one part of s×s ≥ c
// elements, the padding dropped when decoding). bitsPerElement(count)
// assumes one square matrix (n = m = √count): 64R/√count + 256/count.
// Biased (a low-rank projection).
//
// Const-callable from any thread; the state has one owner.
#pragma once

#include <utility>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

// What one aggregation of a vector sends: its matrices and its
// uncompressed ranges (powerSgdPlan()).
struct PowerSgdMatrix {
  size_t offset = 0;  // into the vector (floats)
  size_t rows = 0, cols = 0, rank = 0;
};
struct PowerSgdPlan {
  std::vector<PowerSgdMatrix> matrices;                 // compressed, rank >= 1
  std::vector<std::pair<size_t, size_t>> uncompressed;  // {offset, count}
  bool padded = false;   // batched: one s×s matrix over the zero-padded vector
  size_t pFloats = 0;    // Σ rows·rank: the first all-reduce, with ...
  size_t rawFloats = 0;  // ... Σ uncompressed counts
  size_t qFloats = 0;    // Σ cols·rank: the second all-reduce
};
// The plan for a vector of `count` floats described by `state` (shape or
// layout) under rank `rank`, per tensor or batched. Throws InvalidArgument
// when the state's shapes do not describe `count` floats.
PowerSgdPlan powerSgdPlan(const CompressorState& state, size_t count, int rank, bool batched);

class PowerSgd final : public Compressor {
 public:
  explicit PowerSgd(int rank, bool batched = false);

  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kCustom; }
  Theory theory() const override { return Theory::kErrorFeedback; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;
  // Batched: the whole bucket as one square, shapes unused.
  ShapeUse shapeUse() const override { return batched_ ? ShapeUse::kFlat : ShapeUse::kLayout; }
  ProtocolShape protocolShape() const override { return ProtocolShape::kAllreduceRounds; }
  bool codecWorkScalesWithFirstParameter() const override { return true; }
  // P with the raw floats of vectors, then Q; one all-reduce when nothing is a matrix.
  std::vector<size_t> allreduceRoundFloats(const CompressorState& state,
                                           size_t count) const override {
    const PowerSgdPlan plan = powerSgdPlan(state, count, rank_, batched_);
    if (plan.matrices.empty()) return {count};
    return {plan.pFloats + plan.rawFloats, plan.qFloats};
  }
  int rank() const { return rank_; }
  bool batched() const { return batched_; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  void aggregateCustomStep(Transport& transport, std::span<float> gradient, CompressorState& state,
                           const ProtocolOptions& protocol) const override;

 private:
  int rank_;
  bool batched_;
};

CompressorPtr makePowerSgd(const CompressorParams& params);

// Orthonormalises the `columns` columns of the row-major rows×columns matrix
// `p` in place (Gram-Schmidt, see above).
void orthogonalizeColumns(std::span<float> p, size_t rows, size_t columns);

}  // namespace tetrad
