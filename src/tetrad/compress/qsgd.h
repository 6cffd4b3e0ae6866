// `qsgd`: QSGD (Alistarh, Grubic, Li, Tomioka, Vojnovic, "QSGD:
// Communication-Efficient SGD via Gradient Quantization and Encoding", NIPS
// 2017).
//
// With s levels, every element becomes ‖x‖₂·sign(x)·l/s where l is |x|/‖x‖₂·s
// rounded stochastically to one of its two neighbouring integers, so that
// E[decode] = x (unbiased) and E‖Q(x) − x‖² ≤ min(d/s², √d/s)·‖x‖²
// (Lemma 3.1). Fixed-width coding ("qsgd:S"): sign and level together as the
// code S + sign·l in [0, 2S], ceil(log2(2S+1)) bits per element. Elias coding
// ("qsgd:S:elias"): per element the Elias-gamma code of l+1 followed, when
// l > 0, by a sign bit; about 1 bit per zero element, better for small s.
//
// S in [1, 32767]; aggregation: gather. Random bits come from
// CounterRng(seed, rank, step), one mixer round per element (mixBits). Stateless object; the
// CompressorState has one owner at a time.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

constexpr int kQsgdMaxLevels = 32767;

class QsgdCompressor final : public Compressor {
 public:
  QsgdCompressor(int levels, bool elias);
  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  // Elias coding is variable-length; this returns the fixed-width value, an
  // upper bound for typical tensors (see docs/compression.md).
  double bitsPerElement(size_t count) const override;
  bool unbiased() const override { return true; }

  int levels() const { return levels_; }
  unsigned codeBits() const { return bits_; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;

 private:
  int levels_;
  bool elias_;
  unsigned bits_;
};

CompressorPtr makeQsgd(const CompressorParams& params);

}  // namespace tetrad
