// Model shapes (parameter counts match train/compute/models.cc) and the prediction
// table of docs/scheduling.md.
#include <gtest/gtest.h>

#include <iostream>

#include "tetrad/core/error.h"
#include "tetrad/sched/model_shapes.h"
#include "tetrad/sched/sched_table.h"

namespace tetrad::sched {
namespace {

TEST(ModelShapes, ParameterCountsMatchTheModels) {
  EXPECT_EQ(parameterCount(modelLayers("mlp")), 235'146u);
  EXPECT_EQ(parameterCount(modelLayers("cnn")), 1'663'370u);
  EXPECT_EQ(parameterCount(modelLayers("resnet20")), 272'474u);
  EXPECT_THROW(modelLayers("vgg19"), InvalidArgument);  // vgg16 is a zoo model
}

TEST(ModelShapes, WorkloadIsInReadyOrder) {
  const std::vector<LayerShape> layers = modelLayers("cnn");
  const Workload w = makeWorkload(layers, {.flopsPerSecond = 1e9, .batch = 2, .backwardFactor = 2});
  ASSERT_EQ(w.slots.size(), 8u);
  ASSERT_EQ(w.layerForwardSeconds.size(), 4u);
  // fc2.bias first, conv1.weight last; a layer's backward time on its first slot.
  EXPECT_EQ(w.slots.front().bytes, 10u * 4);
  EXPECT_EQ(w.slots.front().layer, 3);
  EXPECT_EQ(w.slots.back().bytes, 800u * 4);
  EXPECT_EQ(w.slots.back().layer, 0);
  EXPECT_DOUBLE_EQ(w.slots[2].backwardSeconds, 2 * 2 * 2.0 * 3136 * 512 / 1e9);
  EXPECT_DOUBLE_EQ(w.slots[3].backwardSeconds, 0.0);
  for (size_t i = 1; i < w.slots.size(); ++i) EXPECT_LE(w.slots[i].layer, w.slots[i - 1].layer);
  EXPECT_THROW(makeWorkload(layers, {.flopsPerSecond = 0}), InvalidArgument);
}

// The table of docs/scheduling.md (printed; copy it from the test output).
// Assertions: the DP optimum is never worse than wfbp, none, the greedy rule
// or any fusion; forward overlap never hurts.
TEST(SchedTable, DocumentedTable) {
  const ComputeAssumption compute{.flopsPerSecond = 100e9, .batch = 32, .backwardFactor = 2};
  std::vector<ClusterAssumption> clusters;
  for (int workers : {8, 32}) {
    for (double gbps : {1.0, 10.0}) clusters.push_back({workers, 25e-6, gbps * 1e9 / 8});
  }
  const std::vector<std::string> policies = defaultTablePolicies();
  for (const char* model : {"cnn", "resnet20"}) {
    const std::vector<LayerShape> layers = modelLayers(model);
    const Workload workload = makeWorkload(layers, compute);
    const std::vector<PolicyPredictions> rows = predictPolicies(workload, policies, clusters);
    ASSERT_EQ(rows.size(), policies.size());
    double forward = 0;
    for (double f : workload.layerForwardSeconds) forward += f;
    std::cout << "\n"
              << model << " (" << parameterCount(layers) << " parameters, " << workload.slots.size()
              << " tensors, F = " << forward * 1e3
              << " ms, B = " << backwardSeconds(workload.slots) * 1e3 << " ms)\n"
              << formatPredictionTable(workload, rows, clusters);
    const PolicyPredictions* optimal = nullptr;
    for (const PolicyPredictions& row : rows) {
      if (row.policy == "mgwfbp:optimal") optimal = &row;
    }
    ASSERT_NE(optimal, nullptr);
    for (size_t c = 0; c < clusters.size(); ++c) {
      const double best = optimal->perCluster[c].iterationSeconds;
      for (const PolicyPredictions& row : rows) {
        const IterationPrediction& p = row.perCluster[c];
        EXPECT_LE(p.overlappedSeconds, p.iterationSeconds * (1 + 1e-12)) << row.policy;
        if (row.policy.rfind("priority", 0) != 0) {
          EXPECT_LE(best, p.iterationSeconds * (1 + 1e-12))
              << model << " " << clusters[c].label() << ": " << row.policy;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tetrad::sched
