#include "tetrad/train/bench/sched_bench.h"

#include <unistd.h>

#include <filesystem>

#include "tetrad/arch/registry.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/sched/pipeline_cost.h"
#include "tetrad/sched/plan_spec.h"
#include "tetrad/sched/planned_scheduler.h"
#include "tetrad/sched/registry.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/compute/models.h"
#include "tetrad/train/loop/schedule_setup.h"
#include "tetrad/train/trainer.h"

namespace tetrad::train {
namespace {

// The shape of the synthetic data the runs train on (synthetic.h).
const InputShape kInput{1, 28, 28, 10};

void checkOptions(const TrainConfig& c) {
  TETRAD_CHECK(c.cluster.rfind("sim:", 0) == 0, InvalidArgument,
               "bench sched: --cluster {} is not simulated (sim:SPEC)", c.cluster);
  TETRAD_CHECK(clusterNetwork(c.cluster).shape == ClusterShape::kStar, InvalidArgument,
               "bench sched: --cluster {}: the pipeline formula assumes a star (one link per "
               "host)",
               c.cluster);
  TETRAD_CHECK(parseComputeSpec(c.compute).kind != ComputeSpec::Kind::kMeasured, InvalidArgument,
               "bench sched: --compute {}: the prediction needs a modelled compute time "
               "(fixed:DURATION, flops:GFLOPS, throughput:S or device:NAME)",
               c.compute);
  const ArchShape arch = describeArch(c.arch);
  TETRAD_CHECK(
      arch.averagesByCollective && arch.allreduce == AllreduceAlgorithm::kRing, InvalidArgument,
      "bench sched: --arch {}: the prediction models ring all-reduce (allreduce:ring)", c.arch);
  TETRAD_CHECK(c.workers >= 2, InvalidArgument, "bench sched: --workers {}: at least 2", c.workers);
}

}  // namespace

SchedBenchRow predictSchedule(const TrainConfig& c, const std::string& policy) {
  checkOptions(c);
  ModelPtr model = makeSeededModel(c.model, kInput, c.seed);
  ScheduleInputs inputs;
  std::vector<double> stageFlops;
  for (int s = 0; s < model->stageCount(); ++s) stageFlops.push_back(model->stageFlops(s));
  for (const auto& [name, p] : model->named_parameters().pairs()) {
    inputs.slots.push_back({name, size_t(p.numel()), p.sizes().vec()});
    inputs.slotStage.push_back(model->stageOfParameter(name));
  }
  // One forward + backward, as the trainer's compute model charges it; the
  // forward is a third, split over the stages by their FLOPs.
  const ComputeSpec compute =
      resolveComputeModel(parseComputeSpec(c.compute), c.model, c.batchSize);
  const double batchSeconds =
      compute.kind == ComputeSpec::Kind::kFixed
          ? compute.seconds
          : 3.0 * model->forwardFlops() * c.batchSize / (compute.gflops * 1e9);
  inputs.backwardSeconds = plannedBackwardSeconds(batchSeconds, inputs.slotStage, stageFlops);
  double totalFlops = 0;
  for (double f : stageFlops) totalFlops += f;
  std::vector<double> forward;
  for (double f : stageFlops) forward.push_back(batchSeconds / 3 * f / totalFlops);

  const ClusterNetwork net = clusterNetwork(c.cluster);
  CostParams params;
  params.alpha = net.latency;
  params.beta = 1 / net.bandwidth;
  const sched::CommCost cost =
      sched::allreduceCommCost(AllreduceAlgorithm::kRing, c.workers, params);
  const std::vector<sched::TensorSlot> slots = readyOrderSlots(inputs);
  const sched::SchedulePlan plan = sched::parseSchedulePlanSpec(policy).plan(slots, cost);
  const sched::IterationPrediction p = sched::predictIteration(slots, forward, plan, cost);
  SchedBenchRow row;
  row.policy = policy;
  row.predictedSeconds =
      makeScheduler(policy)->gatesForward() ? p.overlappedSeconds : p.iterationSeconds;
  row.messages = int64_t(p.messages.size());
  return row;
}

std::vector<SchedBenchRow> benchSchedules(const SchedBenchOptions& options) {
  TETRAD_CHECK(options.iterations >= 2, InvalidArgument,
               "bench sched: --iters {}: at least 2 (the first has no overlap with a previous "
               "one)",
               options.iterations);
  TETRAD_CHECK(!options.policies.empty(), InvalidArgument, "bench sched: no --policies");
  // Every prediction first: a bad policy or option fails before any run.
  std::vector<SchedBenchRow> rows;
  for (const std::string& policy : options.policies) {
    rows.push_back(predictSchedule(options.config, policy));
  }
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("tetrad-bench-sched-" + std::to_string(::getpid()));
  for (SchedBenchRow& row : rows) {
    TrainConfig c = options.config;
    c.sched = row.policy;
    c.data = "synthetic";
    c.maxIters = options.iterations;
    c.epochs = 1000;
    c.trainSamples = size_t(c.batchSize) * size_t(c.workers) * size_t(options.iterations + 1);
    c.testSamples = 64;
    c.evalEvery = 0;
    c.onNonFinite = "off";
    c.timeline = "off";
    c.quiet = true;
    c.announce = false;
    c.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
    c.out = (scratch / row.policy).string();
    const TrainSummary summary = runTraining(c);
    row.simulatedSeconds = summary.trainTime / double(summary.iterations);
  }
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  return rows;
}

}  // namespace tetrad::train
