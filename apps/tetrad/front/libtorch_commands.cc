// The front end's entries for the subcommands that need LibTorch from their
// first step (libtorch_commands.h): each takes any arguments, --help
// included, and hands the command line to tetrad-torch.
#include "libtorch_commands.h"

#include "command.h"
#include "tetrad/train/libtorch_parts.h"

namespace tetrad::app {
namespace {

void addForwardingEntry(CLI::App* group, const LibTorchCommand& command) {
  CLI::App* cmd = group->add_subcommand(command.name, command.description);
  cmd->set_help_flag();  // --help is tetrad-torch's to answer
  cmd->allow_extras();
  cmd->prefix_command();
  cmd->callback([name = std::string(command.name)] {
    TETRAD_FAIL(train::LibTorchRequired, "tetrad bench {}", name);
  });
}

CommandRegistration registration([](CommandGroups& groups) {
  for (const LibTorchCommand& command : kLibTorchBenchCommands)
    addForwardingEntry(groups.bench, command);
});

}  // namespace
}  // namespace tetrad::app
