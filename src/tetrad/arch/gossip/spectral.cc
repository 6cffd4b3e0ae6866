#include "tetrad/arch/gossip/spectral.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "tetrad/core/error.h"

namespace tetrad {
namespace {

constexpr int kJacobiMaxSweeps = 100;

// The mixing matrices of one period, applied as y = W x straight from the
// adjacency lists (no per-edge storage: a complete graph on 4096 ranks needs
// nothing beyond its adjacency). Weights as in Topology::mixingRow().
struct SparseMixing {
  int n = 0;
  std::vector<const Graph*> graphs;              // [step]
  std::vector<char> regular;                     // [step]
  std::vector<std::vector<double>> selfWeights;  // [step][rank]

  explicit SparseMixing(const Topology& topology) : n(topology.size()) {
    for (int t = 0; t < topology.period(); ++t) {
      graphs.push_back(&topology.graphAt(t));
      regular.push_back(topology.regularAt(t));
      std::vector<double>& self = selfWeights.emplace_back(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) self[i] = topology.weight(i, i, t);
    }
  }
  void apply(int step, const std::vector<double>& x, std::vector<double>& y) const {
    const Graph& graph = *graphs[step];
    for (int i = 0; i < n; ++i) {
      const std::vector<int>& list = graph.adjacency[i];
      double sum = 0;
      if (regular[step]) {
        for (int j : list) sum += x[j];
        sum *= selfWeights[step][i];  // uniform: every weight is 1/(d+1)
      } else {
        for (int j : list)
          sum += Topology::metropolisWeight(graph.degree(i), graph.degree(j)) * x[j];
      }
      y[i] = sum + selfWeights[step][i] * x[i];
    }
  }
  // x <- (M - J/n)ᵀ(M - J/n) x for x ⊥ 1: W_0..W_{L-1}, then back (each W
  // symmetric, and W maps 1⊥ to itself).
  void applyGram(std::vector<double>& x, std::vector<double>& tmp) const {
    const int period = static_cast<int>(graphs.size());
    for (int t = 0; t < period; ++t) apply(t, x, tmp), x.swap(tmp);
    for (int t = period - 1; t >= 0; --t) apply(t, x, tmp), x.swap(tmp);
  }
};

void removeMean(std::vector<double>& x) {
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  for (double& v : x) v -= mean;
}

double norm(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v * v;
  return std::sqrt(sum);
}

SpectralInfo powerIteration(const Topology& topology) {
  const SparseMixing mixing(topology);
  const int n = topology.size();
  std::vector<double> x(static_cast<size_t>(n)), tmp(x.size());
  std::mt19937_64 rng(1);
  for (double& v : x) v = static_cast<double>(rng() >> 11) * 0x1p-53 - 0.5;
  removeMean(x);
  double previous = -1, estimate = 0;  // λ_max of the Gram operator
  int k = 0;
  for (; k < kPowerMaxIterations; ++k) {
    const double before = norm(x);
    if (before == 0) break;
    for (double& v : x) v /= before;
    mixing.applyGram(x, tmp);
    removeMean(x);       // rounding must not bring back the 1 direction
    estimate = norm(x);  // ‖Bv‖ for unit v: vᵀBv <= ‖Bv‖ <= λ_max(B)
    if (std::abs(estimate - previous) <= 1e-15) break;
    previous = estimate;
  }
  SpectralInfo info;
  // B = (M - J/n)ᵀ(M - J/n) over one period: σ₂² for M = W^1 or the product.
  info.contraction = std::pow(std::sqrt(std::max(estimate, 0.0)), 1.0 / topology.period());
  info.gap = 1.0 - info.contraction;
  info.exact = false;
  info.iterations = k;
  return info;
}

DenseMatrix multiply(const DenseMatrix& a, const DenseMatrix& b) {
  const int n = a.n;
  DenseMatrix c(n);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < n; ++k) {
      const double aik = a(i, k);
      if (aik == 0) continue;
      for (int j = 0; j < n; ++j) c(i, j) += aik * b(k, j);
    }
  }
  return c;
}

}  // namespace

DenseMatrix mixingMatrix(const Topology& topology, int64_t step) {
  const int n = topology.size();
  TETRAD_CHECK(n <= kMixingMatrixMaxSize, Unsupported,
               "mixing matrix of '{}': {} ranks exceed the dense limit of {}", topology.spec(), n,
               kMixingMatrixMaxSize);
  DenseMatrix w(n);
  for (int i = 0; i < n; ++i) {
    for (const MixingWeight& m : topology.mixingRow(i, step)) w(i, m.rank) = m.weight;
  }
  return w;
}

std::vector<double> symmetricEigenvalues(DenseMatrix a) {
  const int n = a.n;
  TETRAD_CHECK(n <= 4 * kJacobiMaxSize, Unsupported,
               "Jacobi eigenvalues of a {}x{} matrix: above the limit of {}", n, n,
               4 * kJacobiMaxSize);
  double total = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      TETRAD_CHECK(std::abs(a(i, j) - a(j, i)) <= 1e-12, InvalidArgument,
                   "Jacobi eigenvalues: matrix not symmetric at ({}, {}): {} vs {}", i, j, a(i, j),
                   a(j, i));
      total += a(i, j) * a(i, j);
    }
  }
  for (int sweep = 0; sweep < kJacobiMaxSweeps; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) off += 2 * a(p, q) * a(p, q);
    }
    if (off <= 1e-30 * total || off == 0) break;
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const double apq = a(p, q);
        if (apq == 0) continue;
        // Golub & Van Loan, sym.schur2: J = [c s; -s c] zeroes a_pq in JᵀAJ.
        const double tau = (a(q, q) - a(p, p)) / (2 * apq);
        const double t = (tau >= 0 ? 1.0 : -1.0) / (std::abs(tau) + std::sqrt(1 + tau * tau));
        const double c = 1 / std::sqrt(1 + t * t);
        const double s = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q: A J
          const double akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q: Jᵀ (A J)
          const double apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
      }
    }
  }
  std::vector<double> eigenvalues(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) eigenvalues[i] = a(i, i);
  std::sort(eigenvalues.begin(), eigenvalues.end());
  return eigenvalues;
}

SpectralInfo spectralGap(const Topology& topology) {
  const int n = topology.size();
  if (n == 1) return SpectralInfo{0.0, 1.0, true, 0};
  if (n > kJacobiMaxSize) return powerIteration(topology);
  // A = M - J/n with M the product of one period (W itself when static).
  DenseMatrix m = mixingMatrix(topology, 0);
  for (int t = 1; t < topology.period(); ++t) m = multiply(mixingMatrix(topology, t), m);
  for (double& v : m.values) v -= 1.0 / n;
  SpectralInfo info;
  if (!topology.timeVarying()) {
    const std::vector<double> eig = symmetricEigenvalues(m);
    info.contraction = std::max(std::abs(eig.front()), std::abs(eig.back()));
  } else {
    DenseMatrix gram(n);  // AᵀA
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < n; ++k) {
        const double aki = m(k, i);
        if (aki == 0) continue;
        for (int j = 0; j < n; ++j) gram(i, j) += aki * m(k, j);
      }
    }
    for (int i = 0; i < n; ++i) {  // exact symmetry despite rounding
      for (int j = i + 1; j < n; ++j) gram(j, i) = gram(i, j);
    }
    const std::vector<double> eig = symmetricEigenvalues(gram);
    info.contraction = std::pow(std::sqrt(std::max(eig.back(), 0.0)), 1.0 / topology.period());
  }
  info.contraction = std::min(info.contraction, 1.0);
  info.gap = 1.0 - info.contraction;
  return info;
}

std::optional<double> consensusVariance(const Topology& topology) {
  const int n = topology.size();
  if (n == 1) return 0.0;
  if (topology.timeVarying() || n > kJacobiMaxSize) return std::nullopt;
  // W - J/n has W's eigenvalues, with 0 in place of the all-ones vector's 1.
  DenseMatrix m = mixingMatrix(topology, 0);
  for (double& v : m.values) v -= 1.0 / n;
  double sum = 0;
  for (const double mu : symmetricEigenvalues(m)) {
    const double square = mu * mu;
    if (square >= 1 - 1e-12) return std::numeric_limits<double>::infinity();
    sum += square / (1 - square);
  }
  return sum / n;
}

}  // namespace tetrad
