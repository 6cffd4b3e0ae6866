// Workloads, compute time and network parameters of the cost models.
#include "tetrad/model/workload.h"

#include <gtest/gtest.h>

#include "tetrad/core/error.h"
#include "tetrad/model/network_model.h"
#include "tetrad/sched/model_shapes.h"

namespace tetrad::model {
namespace {

TEST(modelWorkload, CnnHasTheTrainerShapes) {
  const Workload cnn = modelWorkload("cnn");
  EXPECT_EQ(cnn.parameters, 1663370u);
  ASSERT_EQ(cnn.tensors.size(), 8u);
  EXPECT_EQ(cnn.tensors[0].shape, (std::vector<int64_t>{32, 1, 5, 5}));
  EXPECT_EQ(cnn.tensors[1].shape, (std::vector<int64_t>{32}));
  EXPECT_EQ(cnn.tensors[4].shape, (std::vector<int64_t>{512, 3136}));
  for (const TensorShape& t : cnn.tensors) {
    int64_t product = 1;
    for (int64_t d : t.shape) product *= d;
    EXPECT_EQ(uint64_t(product), t.elements);
  }
  EXPECT_FALSE(cnn.estimatedFlops);
  EXPECT_EQ(modelWorkload("mlp").parameters, 235146u);
  EXPECT_EQ(modelWorkload("resnet20").parameters, 272474u);
  EXPECT_THROW(modelWorkload("vgg"), InvalidArgument);
}

TEST(modelWorkload, ParameterCounts) {
  EXPECT_EQ(parseParameterCount("100M"), 100000000u);
  EXPECT_EQ(parseParameterCount("1.66M"), 1660000u);
  EXPECT_EQ(parseParameterCount("25k"), 25000u);
  EXPECT_EQ(parseParameterCount("7"), 7u);
  EXPECT_THROW(parseParameterCount("lots"), InvalidArgument);
  EXPECT_THROW(parseParameterCount("0"), InvalidArgument);
  const Workload w = parameterWorkload(1000000);
  ASSERT_EQ(w.tensors.size(), 1u);
  EXPECT_EQ(w.tensors[0].shape, (std::vector<int64_t>{1000, 1000}));
  EXPECT_TRUE(w.estimatedFlops);
  EXPECT_DOUBLE_EQ(w.forwardFlopsPerSample, 2e6);
  EXPECT_EQ(parameterWorkload(7).tensors[0].shape, (std::vector<int64_t>{7}));  // prime
}

TEST(modelWorkload, ComputeTimeFromFlopsOrFixed) {
  const Workload cnn = modelWorkload("cnn");
  double forward = 0;
  for (const sched::LayerShape& layer : sched::modelLayers("cnn")) forward += layer.forwardFlops;
  EXPECT_DOUBLE_EQ(computeTime(cnn, 64, -1, 100).seconds, 3 * forward * 64 / 100e9);
  EXPECT_DOUBLE_EQ(computeTime(cnn, 64, 0.12, 100).seconds, 0.12);
  EXPECT_THROW(computeTime(cnn, 0, -1, 100), InvalidArgument);
  EXPECT_THROW(computeTime(cnn, 64, -1, 0), InvalidArgument);
}

TEST(modelNetwork, StarAndTwoLevel) {
  const NetworkModel star = networkModel("sim:1Gbps,50us", 8);
  EXPECT_EQ(star.workers, 8);
  EXPECT_DOUBLE_EQ(star.alpha, 50e-6);
  EXPECT_DOUBLE_EQ(star.beta, 1 / 125e6);
  EXPECT_FALSE(star.twoLevel);
  EXPECT_EQ(networkModel("sim:16x10Gbps,25us", 0).workers, 16);

  const NetworkModel two = networkModel("sim:2x4:100Gbps,2us:10Gbps,25us", 0);
  EXPECT_EQ(two.workers, 8);
  EXPECT_TRUE(two.twoLevel);
  EXPECT_EQ(two.ranksPerNode, 4);
  EXPECT_DOUBLE_EQ(two.intraAlpha, 2e-6);
  EXPECT_DOUBLE_EQ(two.intraBeta, 1 / 12.5e9);
  EXPECT_DOUBLE_EQ(two.alpha, 27e-6);      // LAT1 + LAT2
  EXPECT_DOUBLE_EQ(two.beta, 1 / 1.25e9);  // the slower level
  const CostParams params = two.costParams();
  EXPECT_EQ(params.ranksPerNode, 4);
  EXPECT_DOUBLE_EQ(params.intraAlpha, 2e-6);
}

TEST(modelNetwork, RefusesWhatItDoesNotModel) {
  EXPECT_THROW(networkModel("mpi", 4), InvalidArgument);
  EXPECT_THROW(networkModel("sim:1Gbps", 4), InvalidArgument);
  EXPECT_THROW(networkModel("sim:1Gbps,50us", 0), InvalidArgument);  // no host count
  EXPECT_THROW(networkModel("sim:4x1Gbps,50us", 8), InvalidArgument);
  EXPECT_THROW(networkModel("sim:fattree:2;4,4;1,2;1,2:10Gbps,25us", 0), InvalidArgument);
  EXPECT_THROW(networkModel("sim:torus:4x4:10Gbps,25us", 0), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::model
