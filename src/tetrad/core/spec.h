// SpecParams: a parsed policy spec string ("topk:0.01", "ssp:2", "ps:2:colocated",
// "fusion:25MiB") and the typed helpers every factory uses to read its
// parameters.
//
// Grammar: NAME[:PARAM[:PARAM...]]. parseSpec() splits the text; each policy's
// factory reads its PARAMs with the helpers below, which throw InvalidArgument
// with one line naming the whole spec and the rule it breaks, e.g.
//   invalid compressor 'topk:0': ratio must be in (0, 1]
//   invalid --sync 'ssp:-1': staleness bound must be an integer in [0, ...], got '-1'
// The registries of compress/, sync/, arch/ and sched/ all parse their specs
// here (core/registry.h looks the NAME up in their tables).
//
// Plain values; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tetrad {

struct SpecParams {
  std::string what;                 // "compressor", "--sync", ... (for messages)
  std::string spec;                 // the text as given, for messages
  std::string name;                 // "topk"
  std::vector<std::string> params;  // {"0.01", "approx"}

  // Throws InvalidArgument "invalid <what> '<spec>': <rule>".
  [[noreturn]] void fail(std::string_view rule) const;
  // Throws unless min <= params.size() <= max.
  void expectParamCount(size_t min, size_t max) const;

  // params[index] as a ratio in (0, 1]; `what` names it in messages ("ratio").
  double ratio(size_t index, std::string_view what = "ratio") const;
  // params[index] as an integer in [min, max].
  int64_t integer(size_t index, std::string_view what, int64_t min = 1,
                  int64_t max = std::numeric_limits<int64_t>::max()) const;
  // params[index] as a finite number > 0.
  double positiveNumber(size_t index, std::string_view what) const;
  // A number given as `key=VALUE` anywhere after the first `skip` params.
  std::optional<double> keyNumber(std::string_view key, size_t skip = 0) const;
  // True when one of params[skip..] equals `flag` exactly ("approx", "col").
  bool hasFlag(std::string_view flag, size_t skip = 0) const;
  // Throws unless every params[skip..] is one of `flags` or `key=...` for a key in `keys`.
  void expectKnown(size_t skip, std::initializer_list<std::string_view> flags,
                   std::initializer_list<std::string_view> keys = {}) const;
};

// Splits `spec` at ':'; `what` names the kind of spec in messages. Throws
// InvalidArgument on an empty name or an empty parameter.
SpecParams parseSpec(std::string_view spec, std::string_view what);

}  // namespace tetrad
