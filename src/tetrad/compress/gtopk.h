// gTop-k (Shi, Chu, Cheung, See; ICDCS 2019): global Top-k sparsification.
// Instead of gathering p local Top-k packets (p·k entries), ranks merge
// sparse vectors pairwise and keep only k entries after every merge, so
// every message holds at most k entries and all ranks end with one global
// selection of k entries.
//
// Protocol (aggregateCustom; definition of the result). Let q = the largest
// power of two <= p, and merge(a, b) = the sum of sparse vectors a and b
// (union of supports) truncated to its k entries of largest magnitude (ties:
// lower index). Each rank r:
//   1. acc_r = gradient_r + residual_r;  S_r = Top-k(acc_r) as a sparse vector;
//   2. fold: ranks r >= q send S_r to r - q, which sets S_{r-q} = merge(S_{r-q}, S_r);
//   3. recursive doubling: for j = 0..log2(q)-1, ranks r < q exchange with
//      r XOR 2^j and set S_r = merge(S_r, S_{r XOR 2^j}) (IEEE addition is
//      commutative, so both partners hold the same bits afterwards);
//   4. unfold: rank r - q sends the final S to rank r >= q.
// The gradient becomes the dense form of S (the sum; aggregate() divides for
// the average). Residual (built-in error feedback, as in the paper):
// residual_r = acc_r with the entries that r selected locally AND that are
// in the global S set to zero; everything else stays for later steps (so
// ",ef" is refused by the registry).
// Cost: (log2 q + 2·[p != q]) rounds of α + (20 + 8k)β, vs. the gather's
// (p-1)(α + (20 + 8k)β).
//
// Spec: "gtopk:R[:exact|:approx]". encode()/decodeAdd() alone are local Top-k
// with the residual (packet kind kGTopK, sparse format, 64·R + 160/n bits
// per element per message). Aggregation: custom.
//
// Const-callable from any thread; the state has one owner.
#pragma once

#include <algorithm>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/selection.h"
#include "tetrad/compress/sparse_packet.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

class GTopK final : public Compressor {
 public:
  GTopK(double ratio, SelectionMethod method);

  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kCustom; }
  Theory theory() const override { return Theory::kErrorFeedback; }
  ProtocolShape protocolShape() const override { return ProtocolShape::kMergeTree; }
  std::string theoryNote() const override {
    return "gTop-k: δ of the local selection, a proxy for the global one's; Shi et al. 2019";
  }
  // One merge per tree round (compressor.h).
  double modelledDecodes(int ranks) const override {
    int rounds = 0;
    while ((1 << rounds) < ranks) ++rounds;
    return double(std::max(rounds, 1));
  }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  double bitsPerElement(size_t count) const override;

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  void aggregateCustomStep(Transport& transport, std::span<float> gradient, CompressorState& state,
                           const ProtocolOptions& protocol) const override;

 private:
  double ratio_;
  SelectionMethod method_;
};

CompressorPtr makeGTopK(const CompressorParams& params);

// merge(a, b) of the header comment into `out`: a and b sorted by index.
void mergeTopK(const SparseEntries& a, const SparseEntries& b, size_t k, SparseEntries& out);

}  // namespace tetrad
