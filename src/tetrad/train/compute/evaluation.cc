#include "tetrad/train/compute/evaluation.h"

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/flat_model.h"

namespace tetrad::train {
namespace {
constexpr int64_t kEvalBatch = 500;
}  // namespace

void averageBuffers(Model& model, Transport& transport, const AllreduceOptions& options) {
  std::vector<torch::Tensor> buffers;
  for (const torch::Tensor& b : model.buffers()) {
    if (b.is_floating_point()) buffers.push_back(b);
  }
  if (buffers.empty() || transport.size() == 1) return;
  std::vector<float> flat = flattenParameters(buffers);
  AllreduceOptions average = options;
  average.op = ReduceOp::kAverage;
  average.tag = options.tag + kCollectiveTagSpan;
  allreduce(transport, flat, average);
  size_t offset = 0;
  for (torch::Tensor& b : buffers) {
    b.copy_(torch::from_blob(flat.data() + offset, b.sizes(), torch::kFloat32));
    offset += size_t(b.numel());
  }
}

EvalResult evaluateOnRanks(Model& model, BatchBuilder& builder, const std::vector<int64_t>& shard,
                           Transport& transport, const AllreduceOptions& options,
                           const WorkerCompute::LocalRunner& runLocal) {
  averageBuffers(model, transport, options);
  // The no-grad scope closes before the all-reduce (see rank_trainer.h).
  double lossSum = 0, correct = 0;
  const std::function<void()> passes = [&] {
    torch::NoGradGuard noGrad;
    model.eval();
    for (size_t begin = 0; begin < shard.size(); begin += kEvalBatch) {
      size_t count = std::min<size_t>(kEvalBatch, shard.size() - begin);
      auto [images, labels] = builder.gather(std::span(shard).subspan(begin, count));
      torch::Tensor logits = model.forward(images);
      lossSum += torch::nn::functional::cross_entropy(
                     logits, labels,
                     torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                     .item<double>();
      correct += double(logits.argmax(1).eq(labels).sum().item<int64_t>());
    }
    model.train();
  };
  if (runLocal) {
    runLocal(passes);
  } else {
    passes();
  }
  std::vector<float> stats = {float(correct), float(lossSum), float(shard.size())};
  AllreduceOptions sum = options;
  sum.op = ReduceOp::kSum;
  sum.tag = options.tag;
  allreduce(transport, stats, sum);
  TETRAD_CHECK(stats[2] > 0, InvalidArgument, "the test set is empty");
  return {stats[1] / stats[2], stats[0] / stats[2]};
}

}  // namespace tetrad::train
