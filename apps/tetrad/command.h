// Subcommand registry of the `tetrad` command.
//
// Each apps/tetrad/*_command.cc file adds its subcommands by defining a
// static CommandRegistration, so main.cc never lists them:
//
//   static CommandRegistration registration([](CommandGroups& groups) {
//     CLI::App* cmd = groups.bench->add_subcommand("collectives", "...");
//     cmd->callback([] { ... });
//   });
//
// Callbacks report problems by throwing tetrad errors; main() turns them into
// one line on stderr and a non-zero exit.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace tetrad::app {

struct CommandGroups {
  CLI::App* root = nullptr;
  CLI::App* bench = nullptr;  // `tetrad bench ...`
};

class CommandRegistration {
 public:
  using AddFn = std::function<void(CommandGroups&)>;
  explicit CommandRegistration(AddFn add);
  static void addAll(CommandGroups& groups);
};

}  // namespace tetrad::app
