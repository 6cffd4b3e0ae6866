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

namespace {

// A summable aggregation carries the guard's word in the values themselves:
// a rank with something to report has made its bucket non-finite (the
// exchange did, allreduce_exchange.cc), and a sum with a NaN or an Inf in it
// is non-finite on every rank alike (bit-identical results), so the reduced
// bucket's own non-finiteness is the word. The sum order is the one without
// a guard: a finite run computes the same bits. Payload-free: nothing to
// scan, the rank's own word stands.
void takeReducedWord(Transport& transport, GuardRider& rider, std::span<const float> reduced) {
  rider.carried = true;
  if (computesOnData(transport)) rider.word = scanNonFinite(reduced) >= 0 ? 1.0f : 0.0f;
}

// Bytes 4..7 of the header (PacketHeader::reserved), little-endian.
constexpr size_t kReservedOffset = 4;

void setReserved(ByteBuffer& bytes, uint32_t value) {
  TETRAD_CHECK(bytes.size() >= kPacketHeaderBytes, ProtocolError,
               "aggregate: a packet of {} bytes has no header to carry the guard's word",
               bytes.size());
  for (int b = 0; b < 4; ++b) bytes[kReservedOffset + b] = std::byte(uint8_t(value >> (8 * b)));
}

// Every rank's word from its packet's header, summed; the fields are zeroed
// again so that the packets decode as sent.
void sumReserved(Transport& transport, std::vector<ByteBuffer>& packets, GuardRider& rider) {
  rider.carried = true;
  if (!computesOnData(transport)) return;
  uint32_t sum = 0;
  for (size_t r = 0; r < packets.size(); ++r) {
    TETRAD_CHECK(packets[r].size() >= kPacketHeaderBytes, ProtocolError,
                 "aggregate on rank {}: packet from rank {} has {} bytes, shorter than a header",
                 transport.rank(), r, packets[r].size());
    uint32_t value = 0;
    for (int b = 0; b < 4; ++b)
      value |= uint32_t(std::to_integer<uint8_t>(packets[r][kReservedOffset + b])) << (8 * b);
    TETRAD_CHECK(value <= 1, ProtocolError,
                 "aggregate on rank {}: packet from rank {} carries guard word {:#x} (0 or 1)",
                 transport.rank(), r, value);
    sum += value;
    setReserved(packets[r], 0);
  }
  rider.word = float(sum);
}

}  // namespace

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
                  {options.allreduce, options.op, options.tag, WirePrecision::kFloat32,
                   options.selector});
        if (options.rider != nullptr) takeReducedWord(transport, *options.rider, gradient);
        ++state.step;
        return;
      }
      std::vector<float> summable =
          timeCodec(options.codec, [&] { return compressor.encodeSummable(gradient, state); });
      chargeModelled(options.codec, compressor, CodecWork::kEncode, gradient.size());
      allreduce(transport, summable,
                {options.allreduce, ReduceOp::kSum, options.tag, compressor.summableWire(),
                 options.selector});
      if (options.rider != nullptr) takeReducedWord(transport, *options.rider, summable);
      timeCodec(options.codec, [&] { compressor.expandSummed(summable, state, gradient); });
      chargeModelled(options.codec, compressor, CodecWork::kDecode, gradient.size(),
                     compressor.modelledDecodes(transport.size()));
      break;
    }
    case Aggregation::kGather: {
      Packet packet = timeCodec(options.codec, [&] { return compressor.encode(gradient, state); });
      chargeModelled(options.codec, compressor, CodecWork::kEncode, gradient.size());
      if (options.rider != nullptr) setReserved(packet.bytes, options.rider->word > 0.5f ? 1 : 0);
      const bool payload = computesOnData(transport);
      std::vector<ByteBuffer> packets =
          allgatherBytes(transport, packet.bytes, CollectiveOptions{options.tag}, payload);
      if (options.rider != nullptr) sumReserved(transport, packets, *options.rider);
      recyclePacket(std::move(packet), state);  // sent: the next step reuses its pages
      std::fill(gradient.begin(), gradient.end(), 0.0f);
      for (int r = 0; r < transport.size(); ++r) {
        if (!payload && r != transport.rank()) continue;
        try {
          timeCodec(options.codec, [&] { compressor.decodeAdd(packets[r], gradient); });
        } catch (const ProtocolError& error) {
          TETRAD_FAIL(ProtocolError, "aggregate '{}' on rank {}: packet from rank {}: {}",
                      compressor.spec(), transport.rank(), r, error.what());
        }
      }
      // Freed before the modelled charge, which waits on the engine: p ranks
      // each holding p packets across that wait would be p² packets at once.
      std::vector<ByteBuffer>().swap(packets);
      chargeModelled(options.codec, compressor, CodecWork::kDecode, gradient.size(),
                     compressor.modelledDecodes(transport.size()));
      break;
    }
    case Aggregation::kCustom:
      // Before the protocol's first message, as its own encode would be.
      chargeModelled(options.codec, compressor, CodecWork::kEncode, gradient.size());
      compressor.aggregateCustom(transport, gradient, state,
                                 {options.tag, options.allreduce, options.selector, options.codec});
      chargeModelled(options.codec, compressor, CodecWork::kDecode, gradient.size(),
                     compressor.modelledDecodes(transport.size()));
      break;
  }
  if (computesOnData(transport)) finishReduction(gradient, options.op, transport.size());
}

}  // namespace tetrad
