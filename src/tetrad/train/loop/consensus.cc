#include "tetrad/train/loop/consensus.h"

namespace tetrad::train {

std::vector<float> averageModel(Transport& workers, std::span<const float> params,
                                const AllreduceOptions& options) {
  std::vector<float> average(params.begin(), params.end());
  AllreduceOptions mean = options;
  mean.op = ReduceOp::kAverage;
  allreduce(workers, average, mean);
  return average;
}

double consensusDistance(Transport& workers, std::span<const float> params,
                         const AllreduceOptions& options) {
  const std::vector<float> average = averageModel(workers, params, options);
  double squared = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const double d = double(params[i]) - double(average[i]);
    squared += d * d;
  }
  // A statistic: float precision is plenty for the sum over workers.
  std::vector<float> total = {float(squared)};
  AllreduceOptions sum = options;
  sum.op = ReduceOp::kSum;
  sum.tag = options.tag + kCollectiveTagSpan;
  allreduce(workers, total, sum);
  return double(total[0]) / double(workers.size());
}

}  // namespace tetrad::train
