// The `tetrad` command: parses the command line and runs one subcommand.
// Subcommands live in *_command.cc files (see command.h).
#include <cstdio>
#include <exception>
#include <vector>

#include "command.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"

namespace tetrad::app {
namespace {
std::vector<CommandRegistration::AddFn>& registry() {
  static std::vector<CommandRegistration::AddFn> functions;
  return functions;
}
}  // namespace

CommandRegistration::CommandRegistration(AddFn add) {
  registry().push_back(std::move(add));
}

void CommandRegistration::addAll(CommandGroups& groups) {
  for (const AddFn& add : registry()) add(groups);
}

}  // namespace tetrad::app

int main(int argc, char** argv) {
  CLI::App app{
      "tetrad: communication-efficient data-parallel training, on real (Open MPI) or simulated "
      "(SimGrid) clusters"};
  app.require_subcommand(1);
  tetrad::app::CommandGroups groups;
  groups.root = &app;
  groups.bench = app.add_subcommand("bench", "Micro-benchmarks: collectives, compressors");
  groups.bench->require_subcommand(1);
  tetrad::app::CommandRegistration::addAll(groups);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // An unknown flag, a missing subcommand, a repeated option, a value that
    // is not a number: the same contract as every other bad input, one line
    // and exit status 2 (CLI11's own codes and its second "Run with --help"
    // line are not used).
    std::fprintf(stderr, "tetrad: error: %s (see tetrad --help)\n", e.what());
    std::fflush(stderr);
    return 2;
  } catch (const tetrad::NonFiniteError& e) {
    // Every rank agreed and stops by itself: nothing to abort.
    std::fprintf(stderr, "tetrad: error: %s\n", e.what());
    std::fflush(stderr);
    return 1;
  } catch (const tetrad::Interrupted& e) {
    // Every rank stopped after the same iteration and wrote its checkpoint.
    std::fprintf(stderr, "tetrad: %s\n", e.what());
    std::fflush(stderr);
    return 3;
  } catch (const tetrad::InvalidArgument& e) {
    std::fprintf(stderr, "tetrad: error: %s\n", e.what());
    std::fflush(stderr);
    tetrad::abortAllRanks(2);
    return 2;
  } catch (const tetrad::Unsupported& e) {
    // A combination or option tetrad refuses ("not supported"): bad input
    // too, with the same exit status.
    std::fprintf(stderr, "tetrad: error: %s\n", e.what());
    std::fflush(stderr);
    tetrad::abortAllRanks(2);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tetrad: error: %s\n", e.what());
    std::fflush(stderr);
    tetrad::abortAllRanks(1);
    return 1;
  }
  return 0;
}
