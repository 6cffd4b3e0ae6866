// Top-k sparsification (Aji & Heafield 2017; Stich et al. 2018 with error
// feedback): keep the k = max(1, round(R·n)) elements of largest magnitude.
//
// Spec: "topk:R[:approx|:exact]", R in (0, 1]. Default selection: approx
// (the sampled-threshold kernel of selection.h), which returns exactly the
// same indices as exact and is ~2-3x faster on large tensors; "exact" forces
// the radix select. Packet: the sparse format of sparse_packet.h, 64 bits per
// kept element + 160 header bits per tensor, so 64·R + 160/n bits/element.
// Biased (a contraction: ||x - C(x)||^2 <= (1 - k/n)||x||^2); use ",ef".
// Aggregation: gather (all-gather the packets, decode and sum).
//
// Stateless apart from state.step; const-callable from any thread.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/selection.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class TopK final : public Compressor {
 public:
  TopK(double ratio, SelectionMethod method);

  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kGather; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;

  double ratio() const { return ratio_; }

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;

 private:
  double ratio_;
  SelectionMethod method_;
};

CompressorPtr makeTopK(const CompressorParams& params);

// "approx" or "exact" after the first `skip` params (default approx); used by
// the Top-k family (topk, dgc, gtopk).
SelectionMethod parseSelectionMethod(const CompressorParams& params, size_t skip);
// ":exact" or "" (approx is the default and is not spelled out in spec()).
std::string selectionSuffix(SelectionMethod method);

}  // namespace tetrad
