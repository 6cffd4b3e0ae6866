// An overlapping schedule's time per iteration (schedule_cost.h):
//   guard on   T = F + max(B, D) + G      D: the plan's last message's end
//   guard off  T = steady state with forward overlap (pipeline_cost.h)
// F = C/3 and B = 2C/3 split over the layers by FLOPs; each message one
// all-reduce of its bytes on the method's algorithm (sched/comm_cost.h).
#include "tetrad/model/schedule_cost.h"

#include <fmt/format.h>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/model/method_traits.h"
#include "tetrad/sched/comm_cost.h"
#include "tetrad/sched/model_shapes.h"
#include "tetrad/sched/pipeline_cost.h"
#include "tetrad/sched/plan_spec.h"
#include "tetrad/sched/registry.h"

namespace tetrad::model {

Prediction predictScheduled(const Method& given, const std::string& sched, const ModelContext& c) {
  const sched::SchedulePlanSpec spec = sched::parseSchedulePlanSpec(sched);
  // A schedule that exchanges after the backward pass is the method's own time.
  if (!makeScheduler(sched)->overlapsBackward()) return predictMethod(given, c);
  const Method method = canonicalMethod(given);
  TETRAD_CHECK(methodTraits(method).plainBsp(), Unsupported,
               "method '{}' with --sched {}: the schedule model covers bsp on allreduce:ALGO "
               "without compression",
               method.label(), sched);
  TETRAD_CHECK(c.compute.seconds > 0, Unsupported,
               "--sched {}: the schedule model needs a compute time > 0", sched);
  std::vector<sched::LayerShape> layers;
  try {
    layers = sched::modelLayers(c.workload.name);
  } catch (const InvalidArgument&) {
    throw Unsupported(
        fmt::format("--sched {}: the schedule model needs a built-in model's layer table, not '{}'",
                    sched, c.workload.name));
  }
  double forwardFlops = 0;
  for (const sched::LayerShape& layer : layers) forwardFlops += layer.forwardFlops;
  TETRAD_CHECK(forwardFlops > 0, Unsupported, "--sched {}: model '{}' has no FLOPs", sched,
               c.workload.name);
  // One sample at the speed that makes forward + backward take C.
  sched::ComputeAssumption compute;
  compute.batch = 1;
  compute.backwardFactor = 2;
  compute.flopsPerSecond = 3 * forwardFlops / c.compute.seconds;
  const sched::Workload workload = sched::makeWorkload(layers, compute);

  // One message: one all-reduce of its bytes (collective_cost.h with the
  // network's per-size factors and TCP window).
  const sched::CommCost cost = sched::allreduceCommCost(
      parseAllreduceAlgorithm(method.arch.substr(std::string("allreduce:").size())),
      c.network.workers, c.network.costParams());
  const sched::SchedulePlan plan = spec.plan(workload.slots, cost);
  const sched::IterationPrediction timing =
      sched::predictIteration(workload.slots, workload.layerForwardSeconds, plan, cost);

  Prediction p;
  p.method = method;
  p.computeSeconds = c.compute.seconds;
  const double guard = c.nonFiniteGuard ? nonFiniteGuardSeconds(c.network) : 0;
  p.seconds = (c.nonFiniteGuard ? timing.iterationSeconds : timing.overlappedSeconds) + guard;
  p.commSeconds = p.seconds - p.computeSeconds;  // exposed communication
  p.derivation = c.nonFiniteGuard
                     ? fmt::format(
                           "= forward {:.2f} + max(backward {:.2f}, exchange end {:.2f}) + "
                           "guard {:.2f} [--sched {}: {} messages, {:.2f} busy]",
                           timing.forwardSeconds * 1e3, timing.backwardSeconds * 1e3,
                           timing.exchangeEndSeconds * 1e3, guard * 1e3, sched,
                           timing.messages.size(), timing.commBusySeconds * 1e3)
                     : fmt::format(
                           "= steady state {:.2f} with forward overlap [--sched {}: {} "
                           "messages, {:.2f} busy]",
                           timing.overlappedSeconds * 1e3, sched, timing.messages.size(),
                           timing.commBusySeconds * 1e3);
  return p;
}

}  // namespace tetrad::model
