// Aggregation: "compress this gradient bucket and aggregate it across ranks"
// as one call, for every compressor.
//
// aggregate() encodes `gradient` with `compressor` (updating `state`, whose
// step advances by exactly one whatever the protocol), moves the packets
// across ranks with the protocol the compressor declares (compressor.h:
// summable -> all-reduce, gather -> all-gather(v) then decode and sum,
// custom -> the compressor's own protocol), and leaves in `gradient` the sum
// or the average of every rank's decoded contribution. Every rank must call
// it with the same length, compressor spec and tag.
//
// Codec work is charged to options.codec (codec_clock.h): measured around
// every encode and decode (custom protocols time their own local
// arithmetic), or modelled as one encode and modelledDecodes(p) decodes of
// the bucket per call (compressor.h) — a payload-free rank thereby pays for
// the decodes it skips.
//
// Thread-safety: one call at a time per (transport, tag range).
#pragma once

#include <span>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/compress/codec_clock.h"
#include "tetrad/compress/compressor.h"
#include "tetrad/compress/guard_rider.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

struct AggregateOptions {
  ReduceOp op = ReduceOp::kAverage;
  // All-reduce algorithm for summable compressors and for "none".
  AllreduceAlgorithm allreduce = AllreduceAlgorithm::kRing;
  // kAuto's choice per message (allreduce_auto.h); must outlive the call.
  const AllreduceSelector* selector = nullptr;
  // Where encode/decode work is charged (codec_clock.h); null: nowhere.
  CodecClock* codec = nullptr;
  // The non-finite guard's word to carry (guard_rider.h): its word is
  // replaced by the sum over the ranks and `carried` set, where this
  // compressor's aggregation can carry it; null: nothing rides.
  GuardRider* rider = nullptr;
  // First tag; aggregate may use tags [tag, tag + kAggregateTagSpan).
  Tag tag = 1000;
};
constexpr Tag kAggregateTagSpan = 64;

void aggregate(Transport& transport, const Compressor& compressor, std::span<float> gradient,
               CompressorState& state, const AggregateOptions& options = {});

}  // namespace tetrad
