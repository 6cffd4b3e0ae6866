// Compressor registry: spec string -> Compressor.
//
// Grammar: NAME[:PARAM[:PARAM...]][,ef]   e.g. "none", "fp16", "topk:0.01",
// "topk:0.01:approx", "qsgd:16", "powersgd:2", "topk:0.01,ef".
// Unknown names and out-of-range parameters throw InvalidArgument with a
// message naming the spec and the rule (e.g. "ratio must be in (0, 1]").
// A new compressor is one file plus one line in registry.cc.
//
// Convention for adding one (every compressor follows it):
//   1. its header (e.g. compress/topk.h) declares a factory
//        CompressorPtr makeTopK(const CompressorParams& params);
//      CompressorParams (compress/spec.h) holds the parsed NAME, the PARAM
//      strings and the ",ef" flag, and typed helpers (ratio(), integer(),
//      positiveNumber(), keyNumber(), hasFlag(), expectKnown(), fail()) that
//      throw InvalidArgument as "invalid compressor 'topk:0': ratio must be in
//      (0, 1]". The factory validates every PARAM and ignores errorFeedback.
//   2. registry.cc gets one table line {name, example, summary, factory,
//      builtInErrorFeedback}. The registry wraps the result in ErrorFeedback
//      (compress/error_feedback.h) for ",ef"; for a compressor whose entry says
//      it has error feedback built in (onebit, efsign), ",ef" is refused.
//   3. spec() returns the canonical text (without ",ef"; the wrapper adds it),
//      and makeCompressor(c->spec()) must rebuild an equal compressor.
//   4. the class overrides the protected hooks, never the entry points:
//      encodeStep() (required) and, where it has them, encodeSummableStep()
//      + expandSummedStep() (its own summable domain) or
//      aggregateCustomStep() (its own protocol). A hook reads state.step as
//      the index of the step it takes and never advances it: the public
//      encode(), encodeSummable() and aggregateCustom() do, once per call
//      (compressor.h). Inside a hook, call the other hooks (encodeStep(),
//      ...), not the public entry points, on the same state.
//
// Thread-safe (the registry is immutable after static initialisation).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/spec.h"
#include "tetrad/core/registry.h"

namespace tetrad {

CompressorPtr makeCompressor(std::string_view spec);

using CompressorInfo = PolicyInfo;
// Every registered compressor, in a stable order.
const std::vector<CompressorInfo>& registeredCompressors();
// "none, fp16, ..., powersgd:2": the examples, for --help.
std::string knownCompressors();

}  // namespace tetrad
