// Timing-only runs (train/timing/timing_trainer.h): the workload they simulate is
// the real model's, tensor for tensor (a built-in model's is built without
// LibTorch, timing/builtin_workload.h), and the probe measures something.
#include <gtest/gtest.h>

#include "tetrad/sched/model_shapes.h"
#include "tetrad/train/compute/models.h"
#include "tetrad/train/compute/nominal_compute.h"
#include "tetrad/train/libtorch_parts.h"
#include "tetrad/train/timing/builtin_workload.h"
#include "tetrad/train/timing/timing_trainer.h"
#include "tetrad/train/train_config.h"

namespace tetrad::train {
namespace {

struct Case {
  const char* model;
  const char* data;
  InputShape shape;
};

// Every model on a 1×28×28 and a 3×32×32 data set: the timing workload's
// tensors are the LibTorch model's (element counts and shapes, in parameter
// order) and its FLOPs are the model's own count.
TEST(TimingWorkload, MatchesTheLibTorchModels) {
  const Case cases[] = {{"mlp", "fashion-mnist", {1, 28, 28, 10}},
                        {"cnn", "fashion-mnist", {1, 28, 28, 10}},
                        {"resnet20", "fashion-mnist", {1, 28, 28, 10}},
                        {"mlp", "cifar10", {3, 32, 32, 10}},
                        {"cnn", "cifar10", {3, 32, 32, 10}},
                        {"resnet20", "cifar10", {3, 32, 32, 10}}};
  for (const Case& c : cases) {
    TrainConfig config;
    config.model = c.model;
    config.data = c.data;
    config.compute = "fixed:10ms";
    config.timingOnly = true;
    const TimingWorkload w = timingWorkload(resolveConfig(config));
    ModelPtr model = makeModel(c.model, c.shape);
    const auto params = model->named_parameters().pairs();
    ASSERT_EQ(w.shape.slots.size(), params.size()) << c.model << " on " << c.data;
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_EQ(w.shape.slots[i].count, size_t(params[i].second.numel()))
          << c.model << " " << params[i].first;
      EXPECT_EQ(w.shape.slots[i].shape, params[i].second.sizes().vec())
          << c.model << " " << params[i].first;
    }
    EXPECT_EQ(w.shape.forwardFlops, model->forwardFlops()) << c.model << " on " << c.data;
    // Stages as the model runs them (the schedules' per-stage replay).
    ASSERT_EQ(w.stageNames.size(), size_t(model->stageCount())) << c.model;
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_EQ(w.shape.slotStage[i], model->stageOfParameter(params[i].first))
          << c.model << " " << params[i].first;
    }
    // The advisor's layer tables (sched/model_shapes.h) describe the same
    // tensors, in the same order, with the same FLOPs.
    const std::vector<sched::LayerShape> layers = sched::modelLayers(
        c.model, {c.shape.channels, c.shape.height, c.shape.width, c.shape.numClasses});
    std::vector<uint64_t> tableElements;
    double tableFlops = 0;
    for (const sched::LayerShape& layer : layers) {
      tableElements.insert(tableElements.end(), layer.tensorElements.begin(),
                           layer.tensorElements.end());
      if (!layer.tensorShapes.empty() && layer.tensorShapes.front().size() >= 2)
        tableFlops += layer.forwardFlops;
    }
    ASSERT_EQ(tableElements.size(), params.size()) << c.model << " on " << c.data;
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_EQ(tableElements[i], uint64_t(params[i].second.numel())) << c.model << " " << i;
    }
    EXPECT_EQ(tableFlops, model->forwardFlops()) << c.model << " on " << c.data;
    EXPECT_EQ(w.probe.forwardBackward, 0.0) << "no probe unless --compute measured";
  }
}

// The front end's workload of a built-in model (no LibTorch) is the one read
// from the LibTorch module, field for field: names, shapes, stages, FLOPs
// and buffers, on the data sets' inputs and an odd one.
TEST(TimingWorkload, BuiltinTablesEqualTheLibTorchModules) {
  const sched::ModelInput inputs[] = {{1, 28, 28, 10}, {3, 32, 32, 10}, {3, 17, 13, 7}};
  for (const char* model : {"mlp", "cnn", "resnet20"}) {
    for (const sched::ModelInput& input : inputs) {
      const std::string where = fmt::format("{} on {}x{}x{} ({} classes)", model, input.channels,
                                            input.height, input.width, input.classes);
      const TimingWorkload table = builtinTimingWorkload(model, input);
      const TimingWorkload torch = libTorchTimingWorkload(model, input);
      ASSERT_EQ(table.shape.slots.size(), torch.shape.slots.size()) << where;
      for (size_t i = 0; i < torch.shape.slots.size(); ++i) {
        EXPECT_EQ(table.shape.slots[i].name, torch.shape.slots[i].name) << where;
        EXPECT_EQ(table.shape.slots[i].count, torch.shape.slots[i].count) << where;
        EXPECT_EQ(table.shape.slots[i].shape, torch.shape.slots[i].shape) << where;
      }
      EXPECT_EQ(table.shape.slotStage, torch.shape.slotStage) << where;
      EXPECT_EQ(table.stageNames, torch.stageNames) << where;
      EXPECT_EQ(table.shape.stageFlops, torch.shape.stageFlops) << where;
      EXPECT_EQ(table.shape.forwardFlops, torch.shape.forwardFlops) << where;
      EXPECT_EQ(table.bufferFloats, torch.bufferFloats) << where;
    }
  }
  EXPECT_FALSE(isBuiltinModel("nets/wide.pt"));
  EXPECT_THROW(builtinTimingWorkload("vgg99", {}), InvalidArgument);
}

TEST(TimingWorkload, TrainingSetSizeAndProbe) {
  TrainConfig config;
  config.model = "mlp";
  config.data = "cifar10";
  config.trainSamples = 1000;
  config.batchSize = 16;
  config.timingOnly = true;  // --compute measured: one probe
  const TimingWorkload w = timingWorkload(resolveConfig(config));
  EXPECT_EQ(w.trainSamples, 1000u);
  EXPECT_GT(w.probe.forwardBackward, 0.0);
  EXPECT_GT(w.probe.step, 0.0);
  config.trainSamples = 0;
  config.compute = "flops:10";
  EXPECT_EQ(timingWorkload(resolveConfig(config)).trainSamples, 50000u);
  // More workers than the training set feeds: one iteration per epoch.
  EXPECT_EQ(timingStepsPerEpoch(50000, 1024, 64), 1);
  EXPECT_EQ(timingStepsPerEpoch(50000, 4, 64), 195);
}

}  // namespace
}  // namespace tetrad::train
