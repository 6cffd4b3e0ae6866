// CodecCost: the seconds one rank spends encoding its gradient and decoding
// one packet per tensor, for one compressor on one workload — measured on
// this machine or taken from documented constants.
//
// measureCodec() runs the actual compressor (compress/registry.h): per
// tensor a CompressorState with the tensor's shape, one warm-up encode, then
// `repetitions` timed rounds of encode() of every tensor and decodeAdd() of
// every packet; the median round of each. Inputs are deterministic
// pseudo-random values. A workload larger than kMeasureElements floats is
// measured as one near-square tensor of kMeasureElements floats and scaled
// linearly to its size (every compressor's work is linear in the elements
// for a fixed ratio or rank).
//
// nominalCodec() (--no-measure) divides the float32 bytes of the workload
// by a constant throughput per compressor: the 16M-element column of
// `tetrad bench compressors` in docs/BENCHMARKS.md. ",ef" adds the inner
// decode and one pass over memory to the encode:
//   1/enc_ef = 1/enc + 1/dec + 1/kMemoryPassBytesPerSecond.
//
// The identity ("none") costs nothing: aggregate() all-reduces in place.
// Not thread-safe to measure two at once on a shared machine (times would
// mix); the functions themselves share nothing.
#pragma once

#include <cstdint>
#include <string>

#include "tetrad/compress/compressor.h"
#include "tetrad/model/codec_profile.h"
#include "tetrad/model/workload.h"

namespace tetrad::model {

inline constexpr uint64_t kMeasureElements = uint64_t{1} << 22;
inline constexpr double kMemoryPassBytesPerSecond = 10e9;

struct CodecCost {
  double encodeSeconds = 0;  // encode() of every tensor
  double decodeSeconds = 0;  // decodeAdd() of one packet per tensor
  bool measured = false;
  std::string source;  // "measured", "nominal", "none"
};

// The modelled charge of a codec profile (codec_profile.h), as simulated runs
// charge it: per fused bucket of `workload` one encode and one decode of its
// elements, per-call terms included (the caller multiplies the decodes by
// Compressor::modelledDecodes()). Throws InvalidArgument for a compressor
// the profile lacks.
CodecCost profileCodec(const CodecProfile& profile, const Compressor& compressor,
                       const Workload& workload);
CodecCost measureCodec(const Compressor& compressor, const Workload& workload, int repetitions);
// Unsupported for a compressor without a documented constant.
CodecCost nominalCodec(const Compressor& compressor, const Workload& workload);

}  // namespace tetrad::model
