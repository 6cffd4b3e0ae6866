// Vectorisable reductions over float spans used by the quantising
// compressors (norms, maxima, sums of residual-corrected values).
//
// Without -ffast-math a compiler will not reorder a float sum, so these
// kernels keep kLanes independent partial sums and flush them into a double
// every kFlush elements, which also bounds the rounding error on tensors of
// many millions of elements. kLanes = 64 gives four independent SIMD
// accumulators even with AVX-512: with one (16 lanes) every iteration waits
// on the previous add, and a two-stream pass ran at half of memcpy's speed
// (measured on the dev machine, 16M floats).
//
// Header-only pure functions; thread-safe.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace tetrad::vmath {

constexpr size_t kLanes = 64;
constexpr size_t kFlush = 4096;

// How far ahead the streaming loops prefetch, in all: a loop over k input
// streams asks for the line kPrefetchBytes / k ahead in each. The hardware
// prefetchers of the VMs this was measured on did not keep a pass that
// computes per element fed from memory, so compute and memory time added up
// (terngrad at 16M elements 0.36-0.50x memcpy; 1.00-1.26x with this and its
// cheaper random stream; efsign and onebit, two streams, best at 2 KiB each:
// "Encode with software prefetch" in docs/BENCHMARKS.md as of commit 132ffc5,
// in git history).
constexpr size_t kPrefetchBytes = 4096;

// Asks for the cache line `ahead` bytes after `p` (a hint: never faults, also
// past the end of the buffer, which is why the address is an integer sum).
inline void prefetchAhead(const void* p, size_t ahead = kPrefetchBytes) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + ahead));
}

// The same for the kLanes floats at p (four 64-byte lines).
inline void prefetchLanesAhead(const float* p, size_t ahead = kPrefetchBytes) {
  static_assert(kLanes * sizeof(float) == 4 * 64);
  for (size_t line = 0; line < 4; ++line) prefetchAhead(p + line * 16, ahead);
}

// Sum over i of f(x[i]) in double, with float partial sums in SIMD lanes.
template <typename F>
double sumOf(std::span<const float> x, F f) {
  const size_t n = x.size();
  const float* p = x.data();
  double total = 0;
  for (size_t start = 0; start < n; start += kFlush) {
    const size_t end = std::min(n, start + kFlush);
    float lanes[kLanes] = {};
    size_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      prefetchLanesAhead(p + i);
      for (size_t j = 0; j < kLanes; ++j) lanes[j] += f(p[i + j]);
    }
    for (; i < end; ++i) lanes[0] += f(p[i]);
    float sum = 0;
    for (size_t j = 0; j < kLanes; ++j) sum += lanes[j];
    total += sum;
  }
  return total;
}

inline double sumAbs(std::span<const float> x) {
  return sumOf(x, [](float v) { return std::fabs(v); });
}
inline double sumSquares(std::span<const float> x) {
  return sumOf(x, [](float v) { return v * v; });
}
inline double sum(std::span<const float> x) {
  return sumOf(x, [](float v) { return v; });
}

// max |x[i]|, or NaN when some x[i] is NaN.
inline float maxAbs(std::span<const float> x) {
  const size_t n = x.size();
  const float* p = x.data();
  float lanes[kLanes] = {};
  unsigned nan[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    prefetchLanesAhead(p + i);
    for (size_t j = 0; j < kLanes; ++j) {
      float a = std::fabs(p[i + j]);
      lanes[j] = a > lanes[j] ? a : lanes[j];
      nan[j] |= a != a ? 1u : 0u;
    }
  }
  float result = 0;
  unsigned anyNan = 0;
  for (; i < n; ++i) {
    float a = std::fabs(p[i]);
    result = a > result ? a : result;
    anyNan |= a != a ? 1u : 0u;
  }
  for (size_t j = 0; j < kLanes; ++j) {
    result = std::max(result, lanes[j]);
    anyNan |= nan[j];
  }
  return anyNan ? std::numeric_limits<float>::quiet_NaN() : result;
}

// One pass: max|x[i]| (NaN when some x[i] is NaN), and Σ(x[i] − shift) and
// Σ(x[i] − shift)² (float lane sums flushed into doubles, as sumOf). With
// `shift` a value of x the variance Σd²/n − (Σd/n)² does not cancel the way
// Σx²/n − mean² does when |mean| ≫ σ, and it is exactly 0 for a constant x.
struct ShiftedMoments {
  float maxAbs = 0;
  double sum = 0;
  double sumSquares = 0;
};
inline ShiftedMoments shiftedMoments(std::span<const float> x, float shift) {
  const size_t n = x.size();
  const float* p = x.data();
  ShiftedMoments result;
  float top[kLanes] = {};
  unsigned nan[kLanes] = {};
  for (size_t start = 0; start < n; start += kFlush) {
    const size_t end = std::min(n, start + kFlush);
    float s1[kLanes] = {}, s2[kLanes] = {};
    auto step = [&](size_t i, size_t j) {
      const float a = std::fabs(p[i]);
      top[j] = a > top[j] ? a : top[j];
      nan[j] |= a != a ? 1u : 0u;
      const float d = p[i] - shift;
      s1[j] += d;
      s2[j] += d * d;
    };
    size_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      prefetchLanesAhead(p + i);
      for (size_t j = 0; j < kLanes; ++j) step(i + j, j);
    }
    for (; i < end; ++i) step(i, 0);
    float a = 0, b = 0;
    for (size_t j = 0; j < kLanes; ++j) {
      a += s1[j];
      b += s2[j];
    }
    result.sum += a;
    result.sumSquares += b;
  }
  unsigned anyNan = 0;
  for (size_t j = 0; j < kLanes; ++j) {
    result.maxAbs = std::max(result.maxAbs, top[j]);
    anyNan |= nan[j];
  }
  if (anyNan) result.maxAbs = std::numeric_limits<float>::quiet_NaN();
  return result;
}

// residual[i] = x[i] + residual[i]; returns sum of |new residual[i]|.
inline double addIntoAndSumAbs(std::span<const float> x, std::span<float> residual) {
  const size_t n = x.size();
  const float* px = x.data();
  float* pr = residual.data();
  double total = 0;
  for (size_t start = 0; start < n; start += kFlush) {
    const size_t end = std::min(n, start + kFlush);
    float lanes[kLanes] = {};
    size_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      prefetchLanesAhead(px + i, kPrefetchBytes / 2);
      prefetchLanesAhead(pr + i, kPrefetchBytes / 2);
      for (size_t j = 0; j < kLanes; ++j) {
        float v = px[i + j] + pr[i + j];
        pr[i + j] = v;
        lanes[j] += std::fabs(v);
      }
    }
    for (; i < end; ++i) {
      float v = px[i] + pr[i];
      pr[i] = v;
      lanes[0] += std::fabs(v);
    }
    float sum = 0;
    for (size_t j = 0; j < kLanes; ++j) sum += lanes[j];
    total += sum;
  }
  return total;
}

// The deferred error-feedback correction of the built-in-EF sign
// compressors (efsign, onebit; see onebit.h): the value that was sent for an
// element p of the previous step, `negative` when p's sign bit is set and
// `positive` otherwise. Branch-free so that the element loops vectorise.
inline float sentValue(float p, float positive, float negative) {
  const uint32_t mask = 0u - (std::bit_cast<uint32_t>(p) >> 31);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(negative) & mask) |
                              (std::bit_cast<uint32_t>(positive) & ~mask));
}

// One fused pass of those compressors: with p the stored previous p and
// (positive, negative) its sent values, p[i] = x[i] + (p[i] − sent(p[i])),
// i.e. the new p = x + true residual. Returns Σ|new p| (kAbs) or adds Σ of
// the new p with a clear sign bit to `*positiveSum` and Σ of all new p to
// `*totalSum` (!kAbs). Same rounding as subtracting first and adding later.
template <bool kAbs>
inline double correctAddInto(std::span<const float> x, std::span<float> p, float positive,
                             float negative, double* positiveSum = nullptr,
                             double* totalSum = nullptr) {
  const size_t n = x.size();
  const float* __restrict px = x.data();
  float* __restrict pp = p.data();
  double absTotal = 0, posTotal = 0, allTotal = 0;
  for (size_t start = 0; start < n; start += kFlush) {
    const size_t end = std::min(n, start + kFlush);
    float a[kLanes] = {}, b[kLanes] = {};
    auto step = [&](size_t i, size_t lane) {
      const float old = pp[i];
      const float v = px[i] + (old - sentValue(old, positive, negative));
      pp[i] = v;
      if constexpr (kAbs) {
        a[lane] += std::fabs(v);
      } else {
        const float keep = static_cast<float>(1u - (std::bit_cast<uint32_t>(v) >> 31));
        a[lane] += v * keep;
        b[lane] += v;
      }
    };
    size_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (size_t j = 0; j < kLanes; ++j) step(i + j, j);
    }
    for (; i < end; ++i) step(i, 0);
    float sa = 0, sb = 0;
    for (size_t j = 0; j < kLanes; ++j) {
      sa += a[j];
      sb += b[j];
    }
    absTotal += sa;
    posTotal += sa;
    allTotal += sb;
  }
  if constexpr (!kAbs) {
    *positiveSum += posTotal;
    *totalSum += allTotal;
  }
  return absTotal;
}

}  // namespace tetrad::vmath
