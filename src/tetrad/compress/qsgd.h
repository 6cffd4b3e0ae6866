// `qsgd`: QSGD (Alistarh, Grubic, Li, Tomioka, Vojnovic, "QSGD:
// Communication-Efficient SGD via Gradient Quantization and Encoding", NIPS
// 2017).
//
// The vector is cut into buckets of d consecutive elements (the last one
// shorter), as in the paper's experiments (§5: d = 512, the default;
// "qsgd:S:bucket=D" another). With s levels, every element x of a bucket v
// becomes ‖v‖₂·sign(x)·l/s where l is |x|/‖v‖₂·s rounded stochastically to one
// of its two neighbouring integers, so that E[decode] = x (unbiased) and
// E‖Q(v) − v‖² ≤ min(d/s², √d/s)·‖v‖² per bucket (Lemma 3.1). Fixed-width
// coding ("qsgd:S"): sign and level together as the code S + sign·l in
// [0, 2S], ceil(log2(2S+1)) bits per element. Elias coding ("qsgd:S:elias"):
// per element the Elias-gamma code of l+1 followed, when l > 0, by a sign
// bit; about 1 bit per zero element, better for small s. Either way the packet
// carries one float norm per bucket.
//
// S in [1, 32767], d in [1, 2^32 − 1]; aggregation: gather. Random bits come
// from CounterRng(seed, rank, step), one mixer round per element (mixBits).
// Stateless object; the CompressorState has one owner at a time.
#pragma once

#include <functional>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

constexpr int kQsgdMaxLevels = 32767;
// The paper's bucket size (§5) and the largest one a packet can name.
constexpr int64_t kQsgdDefaultBucket = 512;
constexpr int64_t kQsgdMaxBucket = 0xffffffff;

class QsgdCompressor final : public Compressor {
 public:
  QsgdCompressor(int levels, bool elias, size_t bucket = kQsgdDefaultBucket);
  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  // Elias coding is variable-length; this returns the fixed-width value, an
  // upper bound for typical tensors (see docs/compression.md). Norms included.
  double bitsPerElement(size_t count) const override;
  bool unbiased() const override { return true; }
  bool packetSizeDependsOnData() const override { return elias_; }
  // When the buckets tile the packing blocks (the default bucket does).
  bool readsHalfInput() const override;

  int levels() const { return levels_; }
  unsigned codeBits() const { return bits_; }
  size_t bucket() const { return bucket_; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  Packet encodeHalfStep(HalfInput input, CompressorState& state) const override;

 private:
  void appendNorms(std::span<const float> x, std::vector<float>& norms) const;
  // The packet of n elements whose bucket norms are `norms`; blockAt(start,
  // len) gives elements [start, start + len) of the input (len ≤ kPackChunk).
  Packet encodeWith(size_t n, const std::vector<float>& norms,
                    const std::function<const float*(size_t, size_t)>& blockAt,
                    CompressorState& state) const;
  int levels_;
  bool elias_;
  unsigned bits_;
  size_t bucket_;

  // Bytes of a fixed-width packet of `count` elements.
  size_t fixedPacketBytes(size_t count) const;
};

CompressorPtr makeQsgd(const CompressorParams& params);

}  // namespace tetrad
