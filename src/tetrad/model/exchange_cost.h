// α–β cost of one exchange of the whole gradient (or model change) among p
// workers through `allreduce:ALGO` and a compressor, as tetrad train runs
// it (compress/aggregate.h): bucket by bucket, each bucket through the
// compressor's aggregation.
//
// Buckets (as train's --bucket-size): consecutive tensors fused into buckets
// of at most workload.bucketBytes (25 MiB by default, as auto; 0: one per
// tensor, the layer-wise ablation), for every compressor. Per bucket of c floats, P = ⌈bitsPerElement(c)·c/8⌉ packet
// bytes (compress/compressor.h), on p ranks:
//
//   identity (none)     allreduce(ALGO, c floats)            collective_cost.h
//   summable, 16-bit    allreduce(ALGO, c values of 2 bytes)  fp16, bf16
//   summable, other     allreduce(ALGO, ⌈P/4⌉ floats)         randomk: the k
//                       values (+ 36 header bytes, ≈ 9 floats too many)
//   gather              allgatherBytes: (p−1)·(α + P·β)       topk, qsgd, ...
//   sign (vote)         as gather (all-gather of 1-bit packets)
//   powersgd:R          the bucket's matrices n×m with (n+m)R < nm:
//                       allreduce(Σn·R + u) + allreduce(Σm·R), u the floats
//                       of its vectors and small matrices; none of them:
//                       allreduce(c floats) (compress/powersgd.h)
//   gtopk:R             (⌈log2 q⌉ + 2·[p≠q])·(α + (20 + 8k)·β), q = pof2 ≤ p
//
// Every all-reduce is collective_cost.h's step-by-step model (exact block
// sizes), so ring with "none" equals allreduceCost(kRing, p, c, ...) summed
// over the buckets. The printed formula is the algorithm's closed form over
// all buckets (B messages, N bytes), e.g. ring 2(p−1)·(B·α + Σ⌈c/p⌉·4·β).
// Not modelled: γ (local reduction), encode/decode (codec_cost.h), overlap
// with the backward pass (sched "none" sends after it).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/compress/compressor.h"
#include "tetrad/model/network_model.h"
#include "tetrad/model/workload.h"
#include "tetrad/sched/bucketing.h"

namespace tetrad::model {

struct ExchangeEstimate {
  double seconds = 0;
  // Packets one rank decodes per bucket: p when it decodes every rank's
  // packet (gather, majority vote), else 1.
  double decodesPerBucket = 1;
  size_t messages = 0;  // collective calls per exchange
  std::string text;     // "allgather 7 × (8 × 50 us + 133.0 KiB / 125.0 MB/s)"
};

// The buckets train uses under --bucket-size `capBytes` (0: one per tensor).
std::vector<BucketRange> exchangeBuckets(const Workload& workload, uint64_t capBytes);

// Packet bytes of `count` floats: ⌈bitsPerElement(count)·count/8⌉.
double packetBytes(const Compressor& compressor, size_t count);
// The packet of a fused bucket, its layout counted (TernGrad's scale per
// tensor: Compressor::bucketBitsPerElement).
double packetBytes(const Compressor& compressor, const BucketRange& bucket);

// Unsupported for kNative (no model) and a custom protocol without one.
ExchangeEstimate allreduceExchange(AllreduceAlgorithm algorithm, const Compressor& compressor,
                                   const Workload& workload, const NetworkModel& network);

// "3 × 50 us" or "50 us" for one.
std::string latencyText(double count, double alpha);

}  // namespace tetrad::model
