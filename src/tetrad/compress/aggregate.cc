// aggregate() (see aggregate.h) and the default summable-domain hooks of
// Compressor (compressor.h): encodeSummableStep() and expandSummedStep().
//
// The three protocols and their cost on p ranks, for packets of b bytes:
//   kSummable  encodeSummable() -> all-reduce (options.allreduce, sum) of its
//              floats at compressor.summableWire() -> expandSummed(). Ring:
//              2(p-1)α + 2((p-1)/p)·s·β for s wire bytes (n·4 for none; n·2
//              for fp16/bf16, decoded locally first and sent as 16-bit
//              values; k·4 for Random-k).
//   kGather    encode() -> allgatherBytes (ring, one message of exactly b_r
//              bytes per packet per step: (p-1)α + Σ_{r'≠r} b_r'·β) -> decode
//              every rank's packet, in rank order, into a zeroed tensor.
//   kCustom    compressor.aggregateCustom() (its own cost line).
// Then ReduceOp::kAverage divides the sum by p (a division, bit-compatible
// with the collectives' average). The bytes on the wire are exactly the
// packet bytes (gather) or the floats (summable); nothing is added.
// Payload-free simulation: received packets carry no data, so the gather
// path decodes only this rank's own packet and no path divides the "sum" by
// p (traffic and timing stay exact; large simulated worlds do no O(n) work
// per rank that a real sum would need).
#include "tetrad/compress/aggregate.h"

#include <algorithm>

#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/call_check.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/core/error.h"

namespace tetrad {

std::vector<float> Compressor::encodeSummableStep(std::span<const float> input,
                                                  CompressorState& state) const {
  Packet packet = encodeStep(input, state);
  std::vector<float> decoded(input.size(), 0.0f);
  decodeAdd(packet.bytes, decoded);
  recyclePacket(std::move(packet), state);
  return decoded;
}

void Compressor::expandSummedStep(std::span<const float> summed, const CompressorState& state,
                                  uint64_t /*step*/, std::span<float> output) const {
  TETRAD_CHECK(summed.size() == output.size(), InvalidArgument,
               "compressor '{}': summed domain of {} floats for a tensor of {}", spec(),
               summed.size(), output.size());
  std::copy(summed.begin(), summed.end(), output.begin());
}

void aggregate(Transport& transport, const Compressor& compressor, std::span<float> gradient,
               CompressorState& state, const AggregateOptions& options) {
  checkCollectiveTag(transport, options.tag, "aggregate");
  TETRAD_CHECK(options.tag + kAggregateTagSpan <= kMaxUserTag, InvalidArgument,
               "aggregate: tag range [{}, {}) exceeds the user tags", options.tag,
               options.tag + kAggregateTagSpan);
  // The check's tags lie in [tag, tag + kCollectiveTagSpan), like those of
  // the collective that runs first on options.tag.
  const CollectiveScope scope(
      transport,
      {"aggregate", toString(options.allreduce), gradient.size(), compressor.spec(),
       options.op == ReduceOp::kSum ? 0 : 1, options.tag},
      kAggregateTagSpan);
  switch (compressor.aggregation()) {
    case Aggregation::kSummable: {
      if (compressor.isIdentity()) {
        // Zero-copy: all-reduce the gradient where the caller keeps it. No
        // encode runs, but like every aggregation this one consumes a step.
        // The all-reduce applies options.op itself: an averaging ring divides
        // only its own block before the all-gather (1/p of the work, the same
        // bits as dividing every element after it).
        allreduce(transport, gradient,
                  {options.allreduce, options.op, options.tag, WirePrecision::kFloat32});
        ++state.step;
        return;
      }
      std::vector<float> summable = compressor.encodeSummable(gradient, state);
      allreduce(transport, summable,
                {options.allreduce, ReduceOp::kSum, options.tag, compressor.summableWire()});
      compressor.expandSummed(summable, state, gradient);
      break;
    }
    case Aggregation::kGather: {
      Packet packet = compressor.encode(gradient, state);
      const std::vector<ByteBuffer> packets =
          allgatherBytes(transport, packet.bytes, CollectiveOptions{options.tag});
      recyclePacket(std::move(packet), state);  // sent: the next step reuses its pages
      std::fill(gradient.begin(), gradient.end(), 0.0f);
      const bool payload = computesOnData(transport);
      for (int r = 0; r < transport.size(); ++r) {
        if (!payload && r != transport.rank()) continue;
        try {
          compressor.decodeAdd(packets[r], gradient);
        } catch (const ProtocolError& error) {
          TETRAD_FAIL(ProtocolError, "aggregate '{}' on rank {}: packet from rank {}: {}",
                      compressor.spec(), transport.rank(), r, error.what());
        }
      }
      break;
    }
    case Aggregation::kCustom:
      compressor.aggregateCustom(transport, gradient, state, {options.tag, options.allreduce});
      break;
  }
  if (computesOnData(transport)) finishReduction(gradient, options.op, transport.size());
}

}  // namespace tetrad
