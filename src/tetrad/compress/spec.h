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
// ErrorFeedback (compress/error_feedback.h) when it is set. The key helpers
// below read `key=VALUE` parameters whose valid range SpecParams::keyNumber
// (a number > 0) does not fit: "terngrad:clip=0", "qsgd:16:bucket=512",
// "terngrad:scope=bucket".
//
// Plain values; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "tetrad/core/spec.h"

namespace tetrad {

struct CompressorParams : SpecParams {
  bool errorFeedback = false;  // ",ef" suffix

  // The VALUE of `key=VALUE` among params[skip..], or nullopt; a key given
  // twice is refused.
  std::optional<std::string> keyText(std::string_view key, size_t skip = 0) const;
  // `key=VALUE` as a finite number in the interval from `min` to `max`, each
  // end excluded when its `open*` flag is set (max may be infinity), e.g.
  //   momentum must be a number in (0, 1), got '1.5'
  std::optional<double> keyNumberIn(std::string_view key, double min, bool openMin, double max,
                                    bool openMax, size_t skip = 0) const;
  // `key=VALUE` as an integer in [min, max]; `what` describes it in messages.
  std::optional<int64_t> keyInteger(std::string_view key, std::string_view what, int64_t min,
                                    int64_t max, size_t skip = 0) const;
  // `key=VALUE` as one of `choices` (its index), e.g. scope=tensor|bucket.
  std::optional<size_t> keyChoice(std::string_view key,
                                  std::initializer_list<std::string_view> choices,
                                  size_t skip = 0) const;
};

// Splits `spec`; throws InvalidArgument on an empty name or empty parameter.
CompressorParams parseCompressorSpec(std::string_view spec);

}  // namespace tetrad
