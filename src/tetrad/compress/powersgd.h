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
// >= n·m) travel uncompressed: a plain all-reduce of the n·m floats (no
// residual). If R > min(n, m) the rank is min(n, m).
// If every rank's M has rank <= R, P spans the column space of ΣM, so the
// result is exactly ΣM (up to rounding) at every step.
//
// Spec: "powersgd:R", R integer in [1, 1024]. Aggregation: custom, two
// all-reduces (ring) of n·R and m·R floats on tags [tag, tag+16) and
// [tag+16, tag+32); cost 2·allreduce((n+m)·R·4 bytes) instead of n·m·4.
// encode()/decodeAdd() alone (packet kind kPowerSgd): local P and Q, header +
// u32 n, u32 m, u32 r, then P (n×r row-major) and Qᵀ (r×m row-major) as
// floats, or r = 0 and the n·m raw floats
// for uncompressed tensors. bitsPerElement(count) assumes a square matrix
// (n = m = √count): 64R/√count + 224/count. Biased (a low-rank projection).
//
// Const-callable from any thread; the state has one owner.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class PowerSgd final : public Compressor {
 public:
  explicit PowerSgd(int rank);

  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kCustom; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  void aggregateCustomStep(Transport& transport, std::span<float> gradient, CompressorState& state,
                           const ProtocolOptions& protocol) const override;

 private:
  int rank_;
};

CompressorPtr makePowerSgd(const CompressorParams& params);

// Orthonormalises the `columns` columns of the row-major rows×columns matrix
// `p` in place (Gram-Schmidt, see above).
void orthogonalizeColumns(std::span<float> p, size_t rows, size_t columns);

}  // namespace tetrad
