// Shipped data files: where the `configs/` folder of a tetrad checkout or
// install is (device profiles, validation points, codec profiles), so that
// `--compute device:v100-fp32` and `tetrad validate` work from any working
// directory.
//
// shippedConfigDir() looks, in order, at $TETRAD_CONFIGS, then at each
// parent of the running executable's folder and of the working directory
// for a `configs/` folder holding `devices/`; the first found wins. Pure
// lookups (reads the file system); thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace tetrad {

// The configs folder, or "" when none is found.
std::string shippedConfigDir();

// shippedConfigDir() / relative; throws InvalidArgument when no configs
// folder is found (naming $TETRAD_CONFIGS).
std::string shippedConfigPath(std::string_view relative);

}  // namespace tetrad
