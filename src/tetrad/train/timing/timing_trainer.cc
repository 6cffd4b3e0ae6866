#include "tetrad/train/timing/timing_trainer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/sched/model_shapes.h"
#include "tetrad/train/compute/compute_probe.h"
#include "tetrad/train/libtorch_parts.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/record/run_recorder.h"
#include "tetrad/train/timing/builtin_workload.h"
#include "tetrad/train/timing/simulated_scale.h"
#include "tetrad/transport/analytic_network.h"

namespace tetrad::train {
namespace {

struct NominalData {
  sched::ModelInput input;
  size_t trainSamples = 0;
};

// The standard shape and training-set size of a data set (dataset.h).
NominalData nominalData(const TrainConfig& c) {
  NominalData d;
  if (c.data == "fashion-mnist" || c.data == "mnist") {
    d.trainSamples = 60000;
  } else if (c.data == "cifar10") {
    d.input = {3, 32, 32, 10};
    d.trainSamples = 50000;
  } else if (c.data == "synthetic") {
    d.trainSamples = 8192;  // synthetic.h's default
    if (c.trainSamples > 0) d.trainSamples = c.trainSamples;
  } else {
    TETRAD_FAIL(InvalidArgument, "--timing-only: unknown --data '{}'", c.data);
  }
  if (c.trainSamples > 0) d.trainSamples = std::min(d.trainSamples, c.trainSamples);
  return d;
}

// The model's workload: tensors, stages, FLOPs and floating buffers for the
// data set's input shape; from the layer tables for a built-in model, from
// the LibTorch module for a TorchScript file (libtorch_parts.h).
TimingWorkload modelWorkload(const std::string& name, const sched::ModelInput& input) {
  if (isBuiltinModel(name)) return builtinTimingWorkload(name, input);
  return libTorchTimingWorkload(name, input);
}

}  // namespace

TimingWorkload timingWorkload(const ResolvedConfig& config) {
  const TrainConfig& c = config.given;
  const NominalData data = nominalData(c);
  TimingWorkload w = modelWorkload(c.model, data.input);
  w.trainSamples = data.trainSamples;
  if (config.compute.kind == ComputeSpec::Kind::kMeasured) {
    w.probe = measureComputeProbe(
        c.model, {data.input.channels, data.input.height, data.input.width, data.input.classes},
        c.batchSize, c.seed);
  }
  return w;
}

TrainSummary runTimingOnly(const ResolvedConfig& config) {
  const TrainConfig& c = config.given;
  const TimingWorkload workload = timingWorkload(config);
  int64_t parameters = 0;
  for (const ParameterSlot& slot : workload.shape.slots) parameters += int64_t(slot.count);

  LaunchOptions launchOptions;
  launchOptions.cluster = c.cluster;
  const int fixed = fixedHostCount(c.cluster);
  const int defaultWorkers = 4;
  if (c.workers > 0) {
    launchOptions.workers = worldSizeFor(config, c.workers);
  } else if (fixed != kHostsOfPlatformFile) {
    launchOptions.workers = fixed > 0 ? fixed : worldSizeFor(config, defaultWorkers);
  }
  launchOptions.timeoutSeconds = c.timeout;
  launchOptions.simConfig = config.simConfig;
  // The parameter server parses its packets and AD-PSGD's passive task
  // averages the models it receives: they need payloads.
  launchOptions.payloadFree = !timingOnlyNeedsPayloads(config);
  launchOptions.analyticCollectives = c.engine == "analytic";

  // A simulation too large for this machine is refused before it starts;
  // a large one says so, and its ranks report their set-up (nominal_compute.h).
  if (c.cluster.starts_with("sim:") && launchOptions.workers > 0) {
    const auto tensors = int64_t(workload.shape.slots.size());
    checkSimulatedScale(launchOptions.workers, tensors, readMachineLimits());
    if (launchOptions.workers >= kSetupProgressRanks && !c.quiet) {
      std::fprintf(stderr,
                   "tetrad train --timing-only: setting up %d simulated ranks (about %.2g GiB)\n",
                   launchOptions.workers,
                   simulatedRunBytes(launchOptions.workers, tensors) / (1024.0 * 1024 * 1024));
    }
  }
  TrainSummary summary;
  NominalSource source(config, workload, launchOptions.payloadFree);
  launch(launchOptions, [&](Transport& t) {
    const int servers = config.arch.serverRanks;
    const int workers = c.workers > 0 ? c.workers : t.size() - servers;
    std::unique_ptr<RunRecorder> recorder;
    if (t.rank() == 0) {
      std::string name = c.name.empty() ? "timing-" + defaultRunName(config, workers) : c.name;
      std::string folder = c.out.empty() ? (std::filesystem::path("runs") / name).string() : c.out;
      recorder = std::make_unique<RunRecorder>(folder, !c.quiet);
      recorder->writeConfig(configToJson(config, workers));
      if (c.announce)
        std::printf(
            "tetrad train --timing-only: model %s (%lld parameters), %d workers%s on %s%s, "
            "compute %s%s\n",
            c.model.c_str(), static_cast<long long>(parameters), workers,
            servers > 0 ? fmt::format(" + {} servers", servers).c_str() : "", c.cluster.c_str(),
            t.analytic() ? fmt::format(" [engine {}]", t.analytic()->describe()).c_str() : "",
            config.compute.toString().c_str(),
            config.compute.kind == ComputeSpec::Kind::kMeasured
                ? fmt::format(" (probe: {:.3g} s forward/backward, {:.3g} s step)",
                              workload.probe.forwardBackward, workload.probe.step)
                      .c_str()
                : "");
      std::fflush(stdout);
    }
    RankResult r = RankTrainer(config, source, t, recorder.get()).run();
    if (t.rank() != 0) return;
    summary = summaryOf(config, r, t, parameters, recorder ? recorder->folder() : "");
    summary.timingOnly = true;
    if (recorder) recorder->writeSummary(summary.toJson());
  });
  return summary;
}

}  // namespace tetrad::train
