// Setting keys of a sweep file: which TOML keys become which `tetrad train`
// flags, and of which TOML type their values must be.
//
// The table is the single place that knows the mapping; its order is the
// canonical order of a run's arguments (so the run hash does not depend on
// the order of keys in the file). Settings may appear in [workload], in a
// [[cluster]] or in a [[method]]; the more specific table wins (method over
// cluster over workload). `args` is a list of raw extra arguments passed
// through unchecked (for train flags this table does not know yet).
//
// Pure data and pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tetrad::experiment {

enum class ValueKind {
  kString,           // a TOML string
  kInteger,          // a TOML integer
  kNumber,           // a TOML integer or float
  kStringOrInteger,  // a size such as "4MiB" or 0
  kStringList,       // an array of strings; the flag is repeated per element
  kRawArguments,     // an array of strings passed through as they are
  kBoolean,          // a TOML boolean; true passes the flag, false nothing
};

struct SettingKey {
  std::string_view key;   // TOML key, e.g. "batch_size"
  std::string_view flag;  // train flag, e.g. "--batch-size" (empty for kRawArguments)
  ValueKind kind;
};

// Every setting key, in canonical order.
const std::vector<SettingKey>& settingKeys();

// The entry for `key`, or nullptr.
const SettingKey* findSettingKey(std::string_view key);

// "a string", "an integer", ... for error messages.
std::string_view describeKind(ValueKind kind);

// Canonical text of a number: integers without a decimal point, other values
// as the shortest text that reads back to the same double.
std::string canonicalNumber(double value);

}  // namespace tetrad::experiment
