// CompressorParams: a parsed compressor spec string (core/spec.h's SpecParams
// plus the ",ef" suffix).
//
// Grammar (see registry.h): NAME[:PARAM[:PARAM...]][,ef]. Each compressor's
// factory (`CompressorPtr makeTopK(const CompressorParams&)`, declared in the
// compressor's own header) reads its PARAMs with SpecParams' typed helpers,
// which throw InvalidArgument with one line naming the whole spec and the
// rule it breaks, e.g.
//   invalid compressor 'topk:0': ratio must be in (0, 1]
// Factories ignore `errorFeedback`: the registry wraps the compressor in
// ErrorFeedback (compress/error_feedback.h) when it is set.
//
// Plain values; thread-safe.
#pragma once

#include <string_view>

#include "tetrad/core/spec.h"

namespace tetrad {

struct CompressorParams : SpecParams {
  bool errorFeedback = false;  // ",ef" suffix
};

// Splits `spec`; throws InvalidArgument on an empty name or empty parameter.
CompressorParams parseCompressorSpec(std::string_view spec);

}  // namespace tetrad
