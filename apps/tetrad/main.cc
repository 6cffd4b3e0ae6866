// The `tetrad` command: parses the command line and runs one subcommand.
// Subcommands live in *_command.cc files (see command.h).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <vector>

#include "command.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/libtorch_parts.h"

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

// The front end (built with TETRAD_FRONT_END) hands a command line that
// needs LibTorch to tetrad-torch beside it (train/libtorch_parts.h): the
// same process, the same arguments and environment, so mpirun's ranks and a
// sweep's children stay what they were. Returns only on failure.
int runAsLibTorchProgram(char** argv, const std::string& what) {
#ifdef TETRAD_FRONT_END
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path program = self.parent_path() / "tetrad-torch";
  if (!error) {
    std::fflush(stdout);
    std::fflush(stderr);
    ::execv(program.c_str(), argv);  // argv[0] unchanged: usage lines say `tetrad`
  }
  std::fprintf(stderr, "tetrad: error: %s needs LibTorch, and %s could not be run (%s)\n",
               what.c_str(), program.string().c_str(),
               error ? error.message().c_str() : std::strerror(errno));
#else
  std::fprintf(stderr, "tetrad: error: internal: %s reached the LibTorch-free path\n",
               what.c_str());
#endif
  std::fflush(stderr);
  return 1;
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
  } catch (const tetrad::train::LibTorchRequired& e) {
    // Before the command had any effect: tetrad-torch runs it from the start.
    return tetrad::app::runAsLibTorchProgram(argv, e.what());
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
