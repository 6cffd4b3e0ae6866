// Threshold sparsification (Strom 2015; Dryden et al. 2016): keep every
// element with |x| >= T, a fixed magnitude threshold.
//
// Spec: "threshold:T", T > 0. The number kept, nnz, depends on the data, so
// the packet (sparse format of sparse_packet.h) is 64·nnz + 160 bits;
// bitsPerElement() reports the upper bound (every element kept: 64 + 160/n),
// since the density is unknown without data. Biased (a contraction with no
// fixed rate: small gradients may send nothing); use ",ef", which carries
// the dropped mass forward as in Strom's residual scheme. Aggregation:
// gather.
//
// Stateless apart from state.step; const-callable from any thread.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class Threshold final : public Compressor {
 public:
  explicit Threshold(float threshold);

  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;
  bool packetSizeDependsOnData() const override { return true; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;

 private:
  float threshold_;
};

CompressorPtr makeThreshold(const CompressorParams& params);

}  // namespace tetrad
