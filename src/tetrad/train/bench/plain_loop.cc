#include "tetrad/train/bench/plain_loop.h"

#include <chrono>

#include "tetrad/train/compute/flat_model.h"
#include "tetrad/train/compute/models.h"
#include "tetrad/train/data/batch.h"
#include "tetrad/train/data/partition.h"
#include "tetrad/train/loop/lr_schedule.h"

namespace tetrad::train {

PlainLoopResult trainPlainLoop(const TrainConfig& c, const DataSplits& data, int batchSize,
                               int64_t iterations) {
  ModelPtr model = makeSeededModel(
      c.model, {data.train.channels, data.train.height, data.train.width, data.train.numClasses},
      c.seed);
  model->train();
  torch::optim::SGD optimizer(
      model->parameters(),
      torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weightDecay));
  ShardSampler sampler(data.train.labels, data.train.numClasses, 0, 1, PartitionSpec{}, c.seed);
  const int64_t perEpoch = stepsPerEpoch(data.train.size(), 1, batchSize);
  LrSchedule schedule(parseLrSchedule(c.lrSchedule), c.lr, c.warmup, perEpoch, iterations);
  BatchBuilder batches(data.train, data.mean, data.stddev);

  PlainLoopResult result;
  auto start = std::chrono::steady_clock::now();
  std::vector<int64_t> order;
  for (int64_t i = 0; i < iterations; ++i) {
    int64_t step = i % perEpoch;
    if (step == 0) order = sampler.epochOrder(i / perEpoch, size_t(perEpoch) * batchSize);
    for (auto& group : optimizer.param_groups()) {
      static_cast<torch::optim::SGDOptions&>(group.options()).lr(schedule.at(i));
    }
    auto [images, labels] =
        batches.gather(std::span(order).subspan(size_t(step) * batchSize, size_t(batchSize)));
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(images), labels);
    loss.backward();
    optimizer.step();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.iterations = iterations;
  result.samples = iterations * batchSize;
  result.parameters = flattenParameters(model->parameters());
  return result;
}

}  // namespace tetrad::train
