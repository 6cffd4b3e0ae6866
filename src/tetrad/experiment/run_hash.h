// Run hashing: the key of a run folder.
//
// A sweep run is identified by its resolved configuration, the canonical list
// of `tetrad train` arguments (run_plan.h). Its 64-bit FNV-1a hash, printed as
// 16 lower-case hex digits, names the run folder (the first 8 digits), so a
// changed configuration gets a new folder and an unchanged one is found again
// when an interrupted sweep resumes.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tetrad::experiment {

// 64-bit FNV-1a of `bytes` (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
uint64_t fnv1a64(std::string_view bytes);

// `value` as 16 lower-case hex digits.
std::string toHex64(uint64_t value);

// The hash of an argument list: FNV-1a over the arguments, each followed by a
// NUL byte (so {"ab"} and {"a", "b"} differ), as 16 hex digits.
std::string hashArguments(const std::vector<std::string>& arguments);

}  // namespace tetrad::experiment
