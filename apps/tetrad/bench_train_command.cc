// `tetrad bench train-overhead`: single-worker throughput of the tetrad
// trainer against a plain LibTorch loop with the same model, batch and
// threads, measured in the same run (src/tetrad/train/bench/overhead_bench.h).
#include <cstdio>
#include <memory>

#include "command.h"
#include "libtorch_commands.h"
#include "tetrad/train/bench/overhead_bench.h"

namespace tetrad::app {
namespace {

void addBenchTrainCommand(CommandGroups& groups) {
  auto options = std::make_shared<train::OverheadBenchOptions>();
  options->config.testSamples = 1000;
  CLI::App* cmd =
      groups.bench->add_subcommand(kBenchTrainOverhead.name, kBenchTrainOverhead.description);
  train::TrainConfig& c = options->config;
  cmd->add_option("--model", c.model, "mlp, cnn or resnet20")->capture_default_str();
  cmd->add_option("--data", c.data, "fashion-mnist, mnist, cifar10 or synthetic")
      ->capture_default_str();
  cmd->add_option("--data-dir", c.dataDir, "Folder of the dataset files");
  cmd->add_option("--train-samples", c.trainSamples, "Use only the first N training samples");
  cmd->add_option("--batch-size", c.batchSize, "Batch size")->capture_default_str();
  cmd->add_option("--iters", options->iterations, "Training steps per measurement")
      ->capture_default_str();
  cmd->add_option("--repeats", options->repeats, "Alternating measurements of each loop")
      ->capture_default_str();
  cmd->add_option("--threads", options->threads, "LibTorch threads")->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed")->capture_default_str();
  cmd->callback([options] {
    const train::OverheadBenchOptions& o = *options;
    train::OverheadBenchResult r = train::benchTrainOverhead(o);
    std::printf(
        "# train-overhead: model %s (%lld parameters), data %s, batch %d, %lld steps, "
        "%d thread(s)\n",
        o.config.model.c_str(), static_cast<long long>(r.parameters), o.config.data.c_str(),
        o.config.batchSize, static_cast<long long>(o.iterations), o.threads);
    std::printf("%8s %18s %18s %8s\n", "repeat", "plain samples/s", "tetrad samples/s", "ratio");
    for (size_t i = 0; i < r.plain.size(); ++i) {
      std::printf("%8zu %18.1f %18.1f %8.3f\n", i + 1, r.plain[i], r.framework[i],
                  r.framework[i] / r.plain[i]);
    }
    std::printf("%8s %18.1f %18.1f %8.3f\n", "best", r.bestPlain, r.bestFramework, r.ratio());
    std::fflush(stdout);
  });
}

CommandRegistration registration(addBenchTrainCommand);

}  // namespace
}  // namespace tetrad::app
