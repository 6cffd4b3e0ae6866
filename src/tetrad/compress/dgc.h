// Deep Gradient Compression (Lin, Han, Mao, Wang, Dally; ICLR 2018): Top-k
// sparsification of a locally accumulated, momentum-corrected gradient.
//
// Per step, for gradient g of one tensor (state buffers "momentum" u and
// "accumulation" v, n floats each):
//   local clipping (clip=C):   g <- g · min(1, C / ||g||)
//   momentum correction:       u <- m·u + g;   v <- v + u
//   sparsify:                  send the top-k of |v| (k = max(1, round(d·n)))
//   momentum factor masking:   u[sent] <- 0;   v[sent] <- 0
// where the density d follows an exponential warm-up: with W warm-up stages
// of L steps each, stage s = floor(step / L) < W uses d = R^((s+1)/(W+1)),
// later stages d = R. With R = 0.001 and W = 4 this is the paper's schedule
// 25%, 6.25%, 1.6%, 0.4%, then 0.1% (use L = steps per epoch for epochs).
// v keeps the unsent mass, so DGC has error feedback built in (",ef" is
// refused by the registry); momentum lives here, so the optimizer must run
// plain SGD without momentum on DGC-aggregated gradients.
//
// Spec: "dgc:R[:momentum=M][:warmup=W][:stage=L][:clip=C][:exact|:approx]";
// defaults momentum=0.9, warmup=0, stage=1, no clipping, approx selection
// (exact result; selection.h). Packet: sparse format (sparse_packet.h), 64
// bits per kept element, 64·R + 160/n bits/element after warm-up. Biased.
// Aggregation: gather.
//
// Const-callable from any thread; the state has one owner.
#pragma once

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/selection.h"
#include "tetrad/compress/spec.h"

namespace tetrad {

struct DgcOptions {
  double ratio = 0.001;    // final density R in (0, 1]
  double momentum = 0.9;   // m in (0, 1)
  int warmupStages = 0;    // W >= 0
  int64_t stageSteps = 1;  // L >= 1
  double clipNorm = 0;     // C > 0, or 0 for no clipping
  SelectionMethod method = SelectionMethod::kApprox;
};

class Dgc final : public Compressor {
 public:
  explicit Dgc(const DgcOptions& options);

  std::string spec() const override;
  Aggregation aggregation() const override { return Aggregation::kGather; }
  Theory theory() const override { return Theory::kErrorFeedback; }
  double ownMomentum() const override { return options_.momentum; }
  // Without clipping, encode(HalfInput) widens inside the momentum pass.
  bool readsHalfInput() const override { return options_.clipNorm == 0; }
  void decodeAdd(ConstBytes packet, std::span<float> output) const override;
  // At the final density R (after warm-up).
  double bitsPerElement(size_t count) const override;

  // "dgc:d" for each warm-up stage's density d, L steps each.
  std::vector<WarmupPhase> warmupPhases() const override;

  // Density used by the encode() call made at `step`.
  double densityAt(uint64_t step) const;

 protected:
  Packet encodeStep(std::span<const float> input, CompressorState& state) const override;
  Packet encodeHalfStep(HalfInput input, CompressorState& state) const override;

 private:
  // Top-k of v into the packet, then u and v zeroed where it was sent.
  Packet selectAndMask(std::vector<float>& u, std::vector<float>& v, CompressorState& state) const;
  DgcOptions options_;
};

CompressorPtr makeDgc(const CompressorParams& params);

}  // namespace tetrad
