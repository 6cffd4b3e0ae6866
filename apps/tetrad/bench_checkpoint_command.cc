// `tetrad bench checkpoint`: writing one worker's checkpoint against a plain
// write of the same bytes, and reading it back (train/bench/checkpoint_bench.h).
#include <cstdio>
#include <memory>

#include "command.h"
#include "libtorch_commands.h"
#include "tetrad/train/bench/checkpoint_bench.h"

namespace tetrad::app {
namespace {

void addBenchCheckpointCommand(CommandGroups& groups) {
  auto options = std::make_shared<train::CheckpointBenchOptions>();
  train::CheckpointBenchOptions& o = *options;
  o.config.data = "synthetic";
  o.config.trainSamples = 256;
  o.config.testSamples = 64;
  o.config.batchSize = 32;
  CLI::App* cmd = groups.bench->add_subcommand(kBenchCheckpoint.name, kBenchCheckpoint.description);
  cmd->add_option("--models", o.models, "Models")->delimiter(',')->capture_default_str();
  cmd->add_option("--dir", o.folder, "Folder for the files (default: a fresh temporary folder)");
  cmd->add_option("--repeats", o.repeats, "Measurements of each (median reported)")
      ->capture_default_str();
  cmd->callback([options] {
    const auto rows = train::benchCheckpoints(*options);
    std::printf(
        "# tetrad bench checkpoint: median of %d; checkpoint = serialise + CRC-32 + write + "
        "fsync + rename; plain = write + fsync of the same bytes; read = read + verify + load; "
        "async = serialise + hand-off to the writer thread (what the loop waits)\n",
        options->repeats);
    std::printf("%-10s %10s %9s %11s %12s %10s %12s %10s %9s %10s %9s %11s\n", "model",
                "parameters", "MB", "serialise s", "checkpoint s", "MB/s", "plain s", "MB/s",
                "ckpt/plain", "read s", "async s", "async/ckpt");
    for (const auto& row : rows) {
      const double mb = double(row.fileBytes) / 1e6;
      std::printf("%-10s %10lld %9.2f %11.4f %12.4f %10.1f %12.4f %10.1f %9.2f %10.4f %9.4f %11.2f\n",
                  row.model.c_str(), static_cast<long long>(row.parameters), mb,
                  row.serialiseSeconds, row.checkpointSeconds, mb / row.checkpointSeconds,
                  row.plainSeconds, mb / row.plainSeconds, row.checkpointSeconds / row.plainSeconds,
                  row.readSeconds, row.asyncSeconds, row.asyncSeconds / row.checkpointSeconds);
    }
    std::fflush(stdout);
  });
}

CommandRegistration registration(addBenchCheckpointCommand);

}  // namespace
}  // namespace tetrad::app
