#include "tetrad/train/compute/compute_probe.h"

#include <torch/torch.h>

#include "tetrad/train/compute/models.h"
#include "tetrad/train/compute/wall_clock.h"

namespace tetrad::train {
namespace {

using Clock = WallClock;

}  // namespace

ComputeProbe measureComputeProbe(const std::string& model, const ProbeInput& input, int batch,
                                 uint64_t seed) {
  at::set_num_threads(1);
  torch::manual_seed(seed);
  ModelPtr net = makeModel(model, {input.channels, input.height, input.width, input.classes});
  net->train();
  torch::optim::SGD optimizer(net->parameters(),
                              torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(5e-4));
  const torch::Tensor images = torch::randn({batch, input.channels, input.height, input.width});
  const torch::Tensor labels = torch::randint(input.classes, {batch}, torch::kLong);
  ComputeProbe probe;
  for (int pass = 0; pass < 2; ++pass) {  // a warm-up pass, then the measured one
    Clock::time_point start = Clock::now();
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net->forward(images), labels);
    loss.backward();
    probe.forwardBackward = secondsSince(start);
    start = Clock::now();
    optimizer.step();
    probe.step = secondsSince(start);
  }
  return probe;
}

}  // namespace tetrad::train
