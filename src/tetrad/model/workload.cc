// Workloads (workload.h): tensors from sched/model_shapes.h or one N-element
// tensor; compute = 3 · forward FLOPs · batch / speed, or a fixed duration.
#include "tetrad/model/workload.h"

#include <cmath>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/sched/model_shapes.h"

namespace tetrad::model {

Workload modelWorkload(std::string_view model) {
  Workload workload;
  workload.name = std::string(model);
  for (const sched::LayerShape& layer : sched::modelLayers(model)) {
    for (size_t t = 0; t < layer.tensorElements.size(); ++t) {
      TensorShape tensor{layer.tensorElements[t], {}};
      if (t < layer.tensorShapes.size()) tensor.shape = layer.tensorShapes[t];
      if (tensor.shape.empty()) tensor.shape = {int64_t(tensor.elements)};
      workload.tensors.push_back(std::move(tensor));
      workload.parameters += layer.tensorElements[t];
    }
    workload.forwardFlopsPerSample += layer.forwardFlops;
  }
  return workload;
}

Workload parameterWorkload(uint64_t parameters) {
  TETRAD_CHECK(parameters >= 1, InvalidArgument, "--params must be at least 1");
  Workload workload;
  workload.name = fmt::format("{} parameters", parameters);
  // A near-square matrix view (for PowerSGD): rows = ⌊√N⌋ or fewer, so
  // that rows divides N.
  auto rows = static_cast<uint64_t>(std::sqrt(double(parameters)));
  while (rows > 1 && parameters % rows != 0) --rows;
  const std::vector<int64_t> shape =
      rows > 1 ? std::vector<int64_t>{int64_t(rows), int64_t(parameters / rows)}
               : std::vector<int64_t>{int64_t(parameters)};
  workload.tensors.push_back({parameters, shape});
  workload.parameters = parameters;
  workload.forwardFlopsPerSample = 2.0 * double(parameters);
  workload.estimatedFlops = true;
  return workload;
}

ComputeTime computeTime(const Workload& workload, int batch, double fixedSeconds, double gflops) {
  TETRAD_CHECK(batch >= 1, InvalidArgument, "--batch-size must be >= 1, got {}", batch);
  if (fixedSeconds >= 0) {
    return {fixedSeconds, fmt::format("--compute {}", formatSeconds(fixedSeconds))};
  }
  TETRAD_CHECK(std::isfinite(gflops) && gflops > 0, InvalidArgument, "--gflops must be > 0, got {}",
               gflops);
  const double flops = 3.0 * workload.forwardFlopsPerSample * batch;
  return {flops / (gflops * 1e9),
          fmt::format("3 × {:.3g} MFLOP{} × batch {} at {:g} GFLOP/s",
                      workload.forwardFlopsPerSample / 1e6,
                      workload.estimatedFlops ? " (estimated 2/param)" : "", batch, gflops)};
}

}  // namespace tetrad::model
