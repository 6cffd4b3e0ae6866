// The flags of `tetrad train`, shared by the train command and by `tetrad
// run`, which parses every run of a sweep with them before starting any.
//
// Thread-safety: fills `config` through CLI11 while `cmd` parses; one thread.
#pragma once

#include <CLI/CLI.hpp>

#include "tetrad/train/train_config.h"

namespace tetrad::app {

// Adds every `tetrad train` option to `cmd`, bound to the fields of `config`
// (which must outlive `cmd`).
void addTrainOptions(CLI::App* cmd, train::TrainConfig& config);

}  // namespace tetrad::app
