// Random-k sparsification (Stich et al. 2018; Wangni et al. 2018): keep k =
// max(1, round(R·n)) elements chosen uniformly at random without
// replacement. The indices come from a stream keyed by (state.seed,
// state.step) that every rank shares, so at a given step all ranks pick the
// same indices and the packets are summable: aggregate() all-reduces only the
// k values (encodeSummable/expandSummed) and scatters the sum back. This
// needs state.seed and state.step to agree across ranks (they do when every
// rank aggregates the tensor every step); packets carry (seed, step), so
// decoding a packet never depends on the decoder's own state.
//
// Spec: "randomk:R[:scaled]". Unscaled: E[C(x)] = (k/n)·x, a contraction in
// expectation (E||x - C(x)||^2 = (1 - k/n)||x||^2); use ",ef". Scaled: the
// values are multiplied by n/k, so E[C(x)] = x (unbiased, variance grows by
// n/k). Packet: header, u64 seed, u64 step, u32 k, f32 values[k]: no indices
// on the wire, so 32·R + 288/n bits/element; the decoder regenerates the
// indices from (seed, step). Summable aggregation moves the k floats only.
//
// Index stream: Floyd's sampling with a SplitMix64 generator seeded by
// splitMix64(seed ^ salt) + step, indices sorted ascending (via a bitmap).
//
// Stateless apart from state.step; const-callable from any thread.
#pragma once

#include <cstdint>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class RandomK final : public Compressor {
 public:
  RandomK(double ratio, bool scaled);

  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kSummable; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;
  bool unbiased() const override { return scaled_; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  // The k values at the indices of (state.seed, state.step), and their
  // scatter back at the indices of (state.seed, step).
  std::vector<float> encodeSummableStep(std::span<const float> input,
                                        CompressorState& state) const override;
  void expandSummedStep(std::span<const float> summed, const CompressorState& state, uint64_t step,
                        std::span<float> output) const override;

 private:
  double ratio_;
  bool scaled_;
};

CompressorPtr makeRandomK(const CompressorParams& params);

// The k ascending indices in [0, n) that Random-k uses at (seed, step).
// The returned reference stays valid until the next call on this thread.
const std::vector<uint32_t>& randomIndices(size_t n, size_t k, uint64_t seed, uint64_t step);

}  // namespace tetrad
