// The sign-with-feedback pass shared by 1-bit SGD and EFSignSGD (see
// sign_feedback.h). Cost: one pass over the tensor and the stored p (read x
// and p, write p; the sign bits are packed chunk by chunk in the same pass,
// the previous packet's correction applied on the fly).
#include "tetrad/compress/sign_feedback.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#endif

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/vector_math.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

// Number of set bits (unused bits of a packed string are zero).
uint64_t countOnes(ConstBytes bytes) {
  uint64_t count = 0;
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    count += static_cast<uint64_t>(std::popcount(word));
  }
  for (; i < bytes.size(); ++i)
    count += static_cast<uint64_t>(std::popcount(static_cast<uint8_t>(bytes[i])));
  return count;
}

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define TETRAD_SIGN_FEEDBACK_SIMD 1
// vmath::correctAddInto<kAbs> on one chunk (len <= vmath::kFlush) followed by
// packSignBits of the new p, fused: every 64 elements are four 16-lane
// vectors that are corrected, stored, summed into the same 64 lanes as
// correctAddInto's (then reduced in the same order, so the sums are bit for
// bit its sums) and whose sign masks are stored as they are, 16 bits at a
// time. The elements after the last whole 64 go through correctAddInto's
// scalar tail and packSignBits. Adds the chunk's sums to the totals.
// first + second, with `first` as the instruction's first source. When both
// are NaN an x86 add returns the first source's NaN, and the loops this
// kernel replaces (correctAddInto as GCC 12 compiles it) put the new term
// first in the 64 vector lanes and the running sum first in the scalar tail
// and the lane reduction; pinning the same orders keeps the NaN bits of a
// sum over a tensor with several NaNs as they were (checked against the old
// code on random bit patterns).
inline __m512 addFirst(__m512 first, __m512 second) {
  __m512 sum;
  asm("vaddps %2, %1, %0" : "=v"(sum) : "v"(first), "v"(second));
  return sum;
}

inline float addFirst(float first, float second) {
  float sum;
  asm("vaddss %2, %1, %0" : "=v"(sum) : "v"(first), "v"(second));
  return sum;
}

template <bool kAbs>
void correctAddPackChunk(const float* __restrict x, float* __restrict p, size_t len, float positive,
                         float negative, MutableBytes bits, double& absTotal, double& positiveTotal,
                         double& allTotal) {
  constexpr size_t kLanes = vmath::kLanes;
  static_assert(kLanes == 64);
  using F32x16 = float __attribute__((vector_size(64)));
  using U32x16 = uint32_t __attribute__((vector_size(64)));
  const __m512 pos = _mm512_set1_ps(positive), neg = _mm512_set1_ps(negative);
  // Elements [0, full) are summed lane by lane (lane t % 64), the rest into
  // lane 0 after them. The vector groups of 64 start at element h, so that
  // p's loads and stores are line-aligned (a std::vector of megabytes starts
  // 16 bytes into a page, and a 16-float access that straddles two lines
  // halves the streaming rate); the h elements before them and the 64 − h
  // after them are done one by one, into the same lanes, in the same order
  // per lane, so every lane's sum is bit for bit correctAddInto's.
  const size_t full = len / kLanes * kLanes;
  const size_t offset = reinterpret_cast<uintptr_t>(p) % 64;
  const size_t h = full >= 2 * kLanes && offset % sizeof(float) == 0 ? (64 - offset) % 64 / 4 : 0;
  float la[2 * kLanes] = {}, lb[2 * kLanes] = {};
  // One element of [0, full), one by one; returns its sign bit.
  auto mainOne = [&](size_t t) -> uint64_t {
    const float old = p[t];
    const float v = addFirst(old - vmath::sentValue(old, positive, negative), x[t]);
    p[t] = v;
    const size_t lane = t % kLanes;
    if constexpr (kAbs) {
      la[lane] = addFirst(std::fabs(v), la[lane]);
    } else {
      const float keep = static_cast<float>(1u - (std::bit_cast<uint32_t>(v) >> 31));
      la[lane] = addFirst(v * keep, la[lane]);
      lb[lane] = addFirst(v, lb[lane]);
    }
    return std::bit_cast<uint32_t>(v) >> 31;
  };
  uint64_t carry = 0;  // sign bits not yet stored, from bit 0 of the next 64-bit word
  for (size_t t = 0; t < h; ++t) carry |= mainOne(t) << t;
  // The lanes as 4 vectors rotated by h: vector k, lane l is lane (h + 16k + l) % 64.
  std::memcpy(la + kLanes, la, sizeof(float) * kLanes);
  std::memcpy(lb + kLanes, lb, sizeof(float) * kLanes);
  __m512 a[4], b[4];
  for (int k = 0; k < 4; ++k) {
    a[k] = _mm512_loadu_ps(la + h + 16 * k);
    b[k] = _mm512_loadu_ps(lb + h + 16 * k);
  }
  const size_t groups = h == 0 ? full / kLanes : full / kLanes - 1;
  std::byte* words = bits.data();
  for (size_t g = 0; g < groups; ++g) {
    const size_t i = h + g * kLanes;
    vmath::prefetchLanesAhead(x + i, vmath::kPrefetchBytes / 2);  // two streams
    vmath::prefetchLanesAhead(p + i, vmath::kPrefetchBytes / 2);
    uint64_t mask = 0;
    for (int k = 0; k < 4; ++k) {
      const size_t at = i + 16 * static_cast<size_t>(k);
      F32x16 old, in;
      std::memcpy(&old, p + at, sizeof(old));
      std::memcpy(&in, x + at, sizeof(in));
      const F32x16 sent = std::bit_cast<F32x16>(
          _mm512_mask_blend_ps(_mm512_movepi32_mask(std::bit_cast<__m512i>(old)), pos, neg));
      const F32x16 v = std::bit_cast<F32x16>(
          addFirst(std::bit_cast<__m512>(old - sent), std::bit_cast<__m512>(in)));
      std::memcpy(p + at, &v, sizeof(v));
      const __mmask16 sign = _mm512_movepi32_mask(std::bit_cast<__m512i>(v));
      mask |= static_cast<uint64_t>(sign) << (16 * k);
      if constexpr (kAbs) {
        a[k] = addFirst(std::bit_cast<__m512>(std::bit_cast<U32x16>(v) & 0x7fffffffu), a[k]);
      } else {
        const F32x16 keep = __builtin_convertvector(1u - (std::bit_cast<U32x16>(v) >> 31), F32x16);
        a[k] = addFirst(std::bit_cast<__m512>(v * keep), a[k]);
        b[k] = addFirst(std::bit_cast<__m512>(v), b[k]);
      }
    }
    // Elements [h + 64g, h + 64g + 64) are bits h.. of word g and ..h of word g + 1.
    const uint64_t word = h == 0 ? mask : (mask << h) | carry;
    carry = h == 0 ? 0 : mask >> (64 - h);
    std::memcpy(words + 8 * g, &word, sizeof(word));
  }
  // Back to lane order: lane j is rotated position j − h (mod 64).
  float ra[2 * kLanes], rb[2 * kLanes];
  for (int k = 0; k < 4; ++k) {
    _mm512_storeu_ps(ra + h + 16 * k, a[k]);
    _mm512_storeu_ps(rb + h + 16 * k, b[k]);
  }
  for (size_t j = 0; j < kLanes; ++j) {
    la[j] = j >= h ? ra[j] : ra[j + kLanes];
    lb[j] = j >= h ? rb[j] : rb[j + kLanes];
  }
  if (h > 0) {  // the last 64 − h elements of [0, full): bits h.. of the last word
    const size_t first = h + groups * kLanes;
    for (size_t t = first; t < full; ++t) carry |= mainOne(t) << (t - (full - kLanes));
    std::memcpy(words + 8 * groups, &carry, sizeof(carry));
  }
  for (size_t t = full; t < len; ++t) {  // correctAddInto's tail, into lane 0
    const float old = p[t];
    const float v = x[t] + (old - vmath::sentValue(old, positive, negative));
    p[t] = v;
    if constexpr (kAbs) {
      la[0] = addFirst(la[0], std::fabs(v));
    } else {
      const float keep = static_cast<float>(1u - (std::bit_cast<uint32_t>(v) >> 31));
      la[0] = addFirst(la[0], v * keep);
      lb[0] = addFirst(lb[0], v);
    }
  }
  if (full < len) {
    packSignBits(std::span<const float>(p + full, len - full),
                 bits.subspan(full / 8, packedBytes(len - full, 1)));
  }
  float sa = 0, sb = 0;
  for (size_t j = 0; j < kLanes; ++j) {
    sa = addFirst(sa, la[j]);
    sb = addFirst(sb, lb[j]);
  }
  absTotal += sa;
  positiveTotal += sa;
  allTotal += sb;
}
#endif

}  // namespace

float meanOr0(double sum, uint64_t count) {
  return count == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(count));
}

// The reconstruction pairs of the previously sent packet (zero before the
// first encode, or for a state written before they were kept), checked
// against the group count.
std::vector<float> pendingPairs(const CompressorState& state, size_t groups, const char* who) {
  auto it = state.buffers.find(kResidualPendingBuffer);
  if (it == state.buffers.end()) return std::vector<float>(2 * groups, 0.0f);
  TETRAD_CHECK(it->second.size() == 2 * groups, InvalidArgument,
               "{}: state buffer '{}' has {} values but {} reconstruction groups need {} "
               "(tensor shape changed between steps?) (rank {})",
               who, kResidualPendingBuffer, it->second.size(), groups, 2 * groups, state.rank);
  return it->second;
}

void encodeSignWithFeedback(std::span<const float> input, CompressorState& state, bool absScale,
                            MutableBytes pairSlot, MutableBytes bits) {
  const size_t n = input.size();
  std::vector<float>& p = state.buffer(kResidualBuffer, n);
  const std::vector<float> old = pendingPairs(state, 1, absScale ? "efsign" : "onebit");
  float* r = p.data();
  double l1 = 0, positiveSum = 0, totalSum = 0;
  // Chunk by chunk: new p = x + (old p − sent(old p)) and its sums, then the
  // sign bits of the new p while the chunk is still in cache.
  static_assert(kPackChunk == vmath::kFlush, "a chunk is one flush of the partial sums");
  for (size_t start = 0; start < n; start += kPackChunk) {
    const size_t len = std::min(kPackChunk, n - start);
#if TETRAD_SIGN_FEEDBACK_SIMD
    {
      const MutableBytes chunkBits = bits.subspan(start / 8, packedBytes(len, 1));
      double unused = 0;
      if (absScale) {
        correctAddPackChunk<true>(input.data() + start, r + start, len, old[0], old[1], chunkBits,
                                  l1, unused, unused);
      } else {
        correctAddPackChunk<false>(input.data() + start, r + start, len, old[0], old[1], chunkBits,
                                   unused, positiveSum, totalSum);
      }
      continue;
    }
#endif
    std::span<const float> x = input.subspan(start, len);
    std::span<float> chunk(r + start, len);
    if (absScale) {
      l1 += vmath::correctAddInto<true>(x, chunk, old[0], old[1]);
    } else {
      vmath::correctAddInto<false>(x, chunk, old[0], old[1], &positiveSum, &totalSum);
    }
    packSignBits(chunk, bits.subspan(start / 8, packedBytes(len, 1)));
  }
  float positive, negative;
  if (absScale) {
    positive = n == 0 ? 0.0f : static_cast<float>(l1 / static_cast<double>(n));
    negative = -positive;
    std::memcpy(pairSlot.data(), &positive, sizeof(float));
  } else {
    const uint64_t negatives = countOnes(bits);
    positive = meanOr0(positiveSum, n - negatives);
    negative = meanOr0(totalSum - positiveSum, negatives);
    std::memcpy(pairSlot.data(), &positive, 4);
    std::memcpy(pairSlot.data() + 4, &negative, 4);
  }
  state.buffer(kResidualPendingBuffer, 2) = {positive, negative};
}

std::vector<float> deferredResidual(const Compressor& owner, const CompressorState& state) {
  auto it = state.buffers.find(kResidualBuffer);
  if (it == state.buffers.end()) return {};
  std::vector<float> residual = it->second;
  if (!state.buffers.contains(kResidualPendingBuffer)) return residual;
  const std::vector<float>& pending = state.buffers.at(kResidualPendingBuffer);
  const size_t groups = pending.size() / 2;
  TETRAD_CHECK(groups >= 1 && pending.size() % 2 == 0 && residual.size() % groups == 0,
               InvalidArgument,
               "{}: state buffer '{}' has {} values, not a pair per column of {} elements "
               "(rank {})",
               owner.spec(), kResidualPendingBuffer, pending.size(), residual.size(), state.rank);
  for (size_t i = 0; i < residual.size(); ++i) {
    const size_t j = i % groups;
    residual[i] -= vmath::sentValue(residual[i], pending[2 * j], pending[2 * j + 1]);
  }
  return residual;
}

}  // namespace tetrad
