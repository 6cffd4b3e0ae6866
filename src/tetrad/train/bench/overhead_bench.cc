#include "tetrad/train/bench/overhead_bench.h"

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/bench/plain_loop.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/trainer.h"

namespace tetrad::train {

OverheadBenchResult benchTrainOverhead(const OverheadBenchOptions& options) {
  TETRAD_CHECK(options.iterations > 0 && options.repeats > 0 && options.threads > 0,
               InvalidArgument, "iterations, repeats and threads must be positive");
  TrainConfig config = options.config;
  config.workers = 1;
  config.cluster = "sim:1x100Gbps,1us";
  config.quiet = true;
  const DataSplits data = loadData(dataOptionsFor(config));
  const int64_t perEpoch = stepsPerEpoch(data.train.size(), 1, config.batchSize);
  config.maxIters = options.iterations;
  config.epochs = static_cast<int>((options.iterations + perEpoch - 1) / perEpoch);
  at::set_num_threads(options.threads);
  const ResolvedConfig resolved = resolveConfig(config);

  OverheadBenchResult result;
  result.parameters = countParameters(config.model, data.train.channels, data.train.height,
                                      data.train.width, data.train.numClasses);
  LaunchOptions launchOptions;
  launchOptions.cluster = config.cluster;
  launchOptions.workers = 1;
  launchOptions.timeoutSeconds = config.timeout;
  for (int repeat = 0; repeat < options.repeats; ++repeat) {
    PlainLoopResult plain = trainPlainLoop(config, data, config.batchSize, options.iterations);
    result.plain.push_back(double(plain.samples) / plain.seconds);
    RankResult framework;
    launch(launchOptions, [&](Transport& t) {
      RankTrainer trainer(resolved, data, t, nullptr);
      framework = trainer.run();
    });
    TETRAD_CHECK(framework.iterations == options.iterations && framework.wallTime > 0, Error,
                 "the framework ran {} of {} iterations", framework.iterations, options.iterations);
    result.framework.push_back(double(framework.samples) / framework.wallTime);
  }
  result.bestPlain = *std::max_element(result.plain.begin(), result.plain.end());
  result.bestFramework = *std::max_element(result.framework.begin(), result.framework.end());
  return result;
}

}  // namespace tetrad::train
