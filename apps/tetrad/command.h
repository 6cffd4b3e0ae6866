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
#include <filesystem>
#include <functional>
#include <string>

#include "tetrad/model/netprofile/net_model_choice.h"

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

// The `tetrad` program to start child runs with (sweeps, the advisor's
// map): this one, or the front end beside it when this is tetrad-torch
// (train/libtorch_parts.h), so that children that need no LibTorch start
// without it.
inline std::string childProgram() {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const std::filesystem::path front = self.parent_path() / "tetrad";
  if (self.filename() == "tetrad-torch" && std::filesystem::exists(front)) return front.string();
  return self.string();
}

// Validator for --net-model: an empty name is refused (the flag's absence,
// not "", selects the default), so that `--net-model ""` cannot pass silently.
inline const CLI::Validator kNetModelName(
    [](std::string& name) {
      return name.empty() ? std::string(
                                "empty network model: give cm02, lv08 or profile:FILE "
                                "(leave the flag out for the default)")
                          : std::string();
    },
    "NAME");

}  // namespace tetrad::app
