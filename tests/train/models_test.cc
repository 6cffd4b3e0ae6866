// Models, the flat gradient buffer and batch assembly.
#include "tetrad/train/compute/models.h"

#include <gtest/gtest.h>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/flat_model.h"
#include "tetrad/train/data/batch.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

TEST(Models, ShapesParameterCountsAndFlops) {
  // Hand-computed parameter counts for 1x28x28 inputs and 10 classes.
  const int64_t mlp = 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10;
  const int64_t cnn =
      (1 * 32 * 25 + 32) + (32 * 64 * 25 + 64) + (64 * 7 * 7 * 512 + 512) + (512 * 10 + 10);
  EXPECT_EQ(makeModel("mlp", {1, 28, 28, 10})->parameterCount(), mlp);
  EXPECT_EQ(makeModel("cnn", {1, 28, 28, 10})->parameterCount(), cnn);
  // ResNet-20 with projection shortcuts: about 0.27 M parameters.
  int64_t resnet = makeModel("resnet20", {3, 32, 32, 10})->parameterCount();
  EXPECT_GT(resnet, 260000);
  EXPECT_LT(resnet, 280000);
  for (std::string name : {"mlp", "cnn", "resnet20"}) {
    for (InputShape shape : {InputShape{1, 28, 28, 10}, InputShape{3, 32, 32, 10}}) {
      ModelPtr model = makeModel(name, shape);
      torch::Tensor logits =
          model->forward(torch::randn({3, shape.channels, shape.height, shape.width}));
      EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{3, 10})) << name;
      EXPECT_GT(model->forwardFlops(), 2.0 * double(model->parameterCount()) * 0.99) << name;
    }
  }
  EXPECT_THROW(makeModel("vgg", {1, 28, 28, 10}), InvalidArgument);
}

TEST(Models, SameSeedSameReplica) {
  torch::manual_seed(5);
  auto a = flattenParameters(makeModel("cnn", {})->parameters());
  torch::manual_seed(5);
  auto b = flattenParameters(makeModel("cnn", {})->parameters());
  torch::manual_seed(6);
  auto c = flattenParameters(makeModel("cnn", {})->parameters());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(FlatModel, BackwardAndStepWorkInTheFlatBuffers) {
  torch::manual_seed(3);
  ModelPtr model = makeModel("cnn", {});
  const std::vector<float> before = flattenParameters(model->parameters());
  FlatModel flat(model->named_parameters().pairs());
  // The values moved into the flat parameter buffer unchanged.
  auto params = flat.parameters();
  ASSERT_EQ(params.size(), before.size());
  EXPECT_TRUE(std::equal(params.begin(), params.end(), before.begin()));
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  for (int round = 0; round < 2; ++round) {
    flat.zeroGradients();
    torch::Tensor loss = model->forward(torch::randn({4, 1, 28, 28})).square().mean();
    loss.backward();
    EXPECT_NO_THROW(flat.checkViews());
    // The flat buffer equals the concatenation of the .grad() tensors.
    std::vector<torch::Tensor> g;
    for (const auto& p : model->parameters()) g.push_back(p.grad().flatten());
    torch::Tensor concatenated = torch::cat(g);
    auto grads = flat.gradients();
    ASSERT_EQ(size_t(concatenated.numel()), grads.size());
    EXPECT_TRUE(
        torch::equal(concatenated, torch::from_blob(grads.data(), {int64_t(grads.size())})));
    EXPECT_GT(concatenated.abs().sum().item<float>(), 0.f);
    optimizer.step();
    // The step wrote into the flat parameter buffer.
    const std::vector<float> now = flattenParameters(model->parameters());
    EXPECT_TRUE(std::equal(params.begin(), params.end(), now.begin()));
    EXPECT_NE(now, before);
  }
  // A replaced .grad() is detected, not silently trained on.
  model->parameters()[0].mutable_grad() = torch::zeros_like(model->parameters()[0]);
  EXPECT_THROW(flat.checkViews(), Error);
}

TEST(Bucketing, FusedInParameterOrder) {
  ModelPtr model = makeModel("mlp", {});  // six tensors
  FlatModel flat(model->named_parameters().pairs());
  auto perTensor = fuseInOrder(flat.slots(), 0);
  ASSERT_EQ(perTensor.size(), 6u);
  EXPECT_EQ(perTensor[0].shape, (std::vector<int64_t>{256, 784}));
  EXPECT_EQ(perTensor[1].offset, size_t(256 * 784));
  auto fused = fuseInOrder(flat.slots(), 64 << 20);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0].count, size_t(model->parameterCount()));
  EXPECT_TRUE(fused[0].shape.empty());
  // 130 000 floats: fc1.weight (200 704) alone, then the rest together.
  auto limited = fuseInOrder(flat.slots(), 130000 * 4);
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(limited[1].offset, size_t(256 * 784));
  size_t total = 0;
  for (const auto& b : limited) total += b.count;
  EXPECT_EQ(total, size_t(model->parameterCount()));
}

TEST(BatchBuilder, NormalisesAndGathers) {
  DataSplits data = testing::smallSynthetic(64, 8);
  BatchBuilder builder(data.train, data.mean, data.stddev);
  std::vector<int64_t> indices = {5, 0, 63};
  auto [images, labels] = builder.gather(indices);
  EXPECT_EQ(images.sizes(), (std::vector<int64_t>{3, 1, 28, 28}));
  EXPECT_EQ(labels[2].item<int64_t>(), data.train.labels[63]);
  float expected = (data.train.images[5 * 784 + 17] / 255.f - data.mean[0]) / data.stddev[0];
  EXPECT_FLOAT_EQ(images[0][0][0][17].item<float>(), expected);
  std::vector<int64_t> bad = {64};
  EXPECT_THROW(builder.gather(bad), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::train
