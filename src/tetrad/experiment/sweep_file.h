// Reading a sweep file (TOML, see sweep_spec.h and docs/experiments.md).
//
// Every problem is an InvalidArgument whose message starts with
// "FILE:LINE:COLUMN: key 'KEY'": a TOML syntax error, an unknown key, a value
// of the wrong type, a missing or duplicate label, no method or no cluster.
// Values of the right type are not judged here: `tetrad train`'s own checks
// run on every resolved run before a sweep starts (run_validation.h).
//
// Pure functions (parseSweepFile reads one file); thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "tetrad/experiment/sweep_spec.h"

namespace tetrad::experiment {

// Parses `text`; `file` names it in messages.
SweepSpec parseSweepText(std::string_view text, const std::string& file);

// Reads and parses the file at `path`.
SweepSpec parseSweepFile(const std::string& path);

}  // namespace tetrad::experiment
