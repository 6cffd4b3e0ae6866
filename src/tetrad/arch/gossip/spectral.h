// Spectral analysis of gossip topologies: the dense mixing matrix, a
// symmetric eigensolver, the spectral gap that bounds how fast gossip
// averaging reaches consensus, and the whole spectrum's consensus variance
// (consensusVariance, below) that the iteration theory uses.
//
// For a static topology with mixing matrix W (symmetric, doubly stochastic)
// the consensus distance contracts per step by at most the second largest
// eigenvalue modulus |λ₂| = max(λ₂, -λ_n) = ‖W - 11ᵀ/n‖₂:
//   Σ_i ‖x_i - x̄‖² after t steps <= |λ₂|^(2t) · (the same initially),
// and the spectral gap is 1 - |λ₂|. For a time-varying topology of period L
// (exp:one-peer) a single step need not contract at all (one-peer: |λ₂| = 1),
// so the reported contraction is per step over a whole period:
// ρ = σ₂(M)^(1/L), with M = W_{L-1}···W_0 and σ₂(M) = ‖M - 11ᵀ/n‖₂, the
// largest singular value on 1⊥; the gap is 1 - ρ (one-peer: M = 11ᵀ/n, gap 1).
//
// Methods: for n <= kJacobiMaxSize (256), cyclic Jacobi on the dense matrix
// (W - 11ᵀ/n, or (M - 11ᵀ/n)ᵀ(M - 11ᵀ/n) for time-varying topologies):
// exact to rounding, O(n³) per sweep (a fraction of a second at n = 256).
// Above, power iteration on the same operator applied sparsely (O(edges)
// per iteration, at most kPowerMaxIterations iterations): its estimate of
// |λ₂| is a lower bound (so the gap an upper bound) that converges like
// (|λ₃|/|λ₂|)^(2k); it is accurate to ~1e-6 relative on the gap when the gap
// is not tiny, but e.g. ring:4096 (gap ~1.6e-6) is not resolved.
// `SpectralInfo::exact` says which method ran.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tetrad/arch/gossip/topology.h"

namespace tetrad {

constexpr int kJacobiMaxSize = 256;
constexpr int kPowerMaxIterations = 50000;
// mixingMatrix() refuses larger worlds (n² doubles: 128 MB at 4096).
constexpr int kMixingMatrixMaxSize = 4096;

// A dense n×n matrix of doubles, row-major.
struct DenseMatrix {
  int n = 0;
  std::vector<double> values;

  explicit DenseMatrix(int size = 0)
      : n(size), values(static_cast<size_t>(size) * static_cast<size_t>(size), 0.0) {}
  double& operator()(int i, int j) { return values[static_cast<size_t>(i) * n + j]; }
  double operator()(int i, int j) const { return values[static_cast<size_t>(i) * n + j]; }
};

// The mixing matrix W at `step` (w_ij of Topology::mixingRow). Throws
// Unsupported above kMixingMatrixMaxSize ranks.
DenseMatrix mixingMatrix(const Topology& topology, int64_t step);

// Eigenvalues of the symmetric matrix `a`, ascending, by cyclic Jacobi
// (sweeps until the off-diagonal Frobenius norm is below 1e-15 of the
// whole, at most 100). Throws InvalidArgument if `a` is not symmetric (|a_ij - a_ji| >
// 1e-12) and Unsupported above kJacobiMaxSize·4 rows (too slow).
std::vector<double> symmetricEigenvalues(DenseMatrix a);

struct SpectralInfo {
  double contraction = 0;  // |λ₂| (static) or σ₂(M)^(1/L) (time-varying)
  double gap = 0;          // 1 - contraction
  bool exact = true;       // Jacobi (true) or power iteration (false)
  int iterations = 0;      // power iterations (0 for Jacobi)
};

SpectralInfo spectralGap(const Topology& topology);

// The stationary consensus variance of gossip driven by i.i.d. noise, per unit
// of injected variance: with x ← W(x − ηξ) and ξ i.i.d. across ranks and
// steps, (1/n)·E‖x − x̄‖² tends to η²σ²·κ with
//   κ = (1/n) Σ_{i>=2} λ_i² / (1 − λ_i²)
// over the eigenvalues of W other than the 1 of the all-ones vector. It is
// what the spectral-gap bound bounds: every term is at most λ²/(1 − λ²) with
// λ = |λ₂|, so κ <= ((n − 1)/n)·(1/p − 1), p = 1 − λ²; a ring's spectrum is
// mostly far below λ₂, so its κ is 3.6–11× smaller than 1/p − 1 at 8–32 ranks.
// Defined for static topologies of at most kJacobiMaxSize ranks (Jacobi,
// exact to rounding); nullopt for time-varying or larger ones, and +inf when
// W does not mix (an eigenvalue of modulus 1 besides the all-ones one).
std::optional<double> consensusVariance(const Topology& topology);

}  // namespace tetrad
