// The model zoo's tables (sched/model_zoo.h) against the published parameter
// counts of the reference modules, and their FLOPs against closed forms.
#include "tetrad/sched/model_zoo.h"

#include <gtest/gtest.h>

#include "tetrad/core/error.h"
#include "tetrad/sched/model_shapes.h"

namespace tetrad::sched {
namespace {

double forwardFlops(const std::vector<LayerShape>& layers) {
  double flops = 0;
  for (const LayerShape& layer : layers) flops += layer.batchNorm ? 0 : layer.forwardFlops;
  return flops;
}

// torchvision's documented counts (resnet50, resnet101, vgg16, inception_v3
// with aux_logits), Hugging Face's BertModel (with the pooler) for BERT,
// GPT-2 small with the LM head tied; resnet18-cifar is PowerSGD's CIFAR
// ResNet-18 (11,173,962); lstm is 3 x 4 x 650 x (650 + 650 + 2) + 33,278 x
// (650 + 1), the PowerSGD paper code's model (tied, WikiText-2 vocabulary).
TEST(ModelZoo, ParameterCountsArePublishedOnes) {
  EXPECT_EQ(parameterCount(zooLayers("resnet50")), 25'557'032u);
  EXPECT_EQ(parameterCount(zooLayers("resnet101")), 44'549'160u);
  EXPECT_EQ(parameterCount(zooLayers("vgg16")), 138'357'544u);
  EXPECT_EQ(parameterCount(zooLayers("inception3")), 27'161'264u);
  EXPECT_EQ(parameterCount(zooLayers("resnet18-cifar")), 11'173'962u);
  EXPECT_EQ(parameterCount(zooLayers("bert-base")), 109'482'240u);
  EXPECT_EQ(parameterCount(zooLayers("bert-large")), 335'141'888u);
  EXPECT_EQ(parameterCount(zooLayers("gpt2")), 124'439'808u);
  EXPECT_EQ(parameterCount(zooLayers("lstm")),
            3u * 4 * 650 * (650 + 650 + 2) + 33'278u * (650 + 1));
}

// ResNet-50: 4.09 GMAC (8.18 GFLOP) per 224x224 image; VGG-16 15.47 GMAC.
TEST(ModelZoo, VisionFlopsMatchTheirKnownMultiplyAdds) {
  EXPECT_NEAR(forwardFlops(zooLayers("resnet50")) / 1e9, 8.18, 0.01);
  EXPECT_NEAR(forwardFlops(zooLayers("vgg16")) / 1e9, 30.94, 0.01);
}

// A BERT layer: 4 d^2 + 2 * 4 d^2 weights per token (2 FLOPs each) plus the
// attention products 4 L^2 d; embeddings count 0 and the pooler 2 d^2 once.
TEST(ModelZoo, BertFlopsFollowTheSequenceLength) {
  for (int length : {128, 384}) {
    const double d = 768, l = length;
    const double expected = 12 * (2 * 12 * d * d * l + 4 * l * l * d) + 2 * d * d;
    EXPECT_NEAR(forwardFlops(zooLayers(fmt::format("bert-base:{}", length))), expected,
                expected * 1e-9);
  }
  EXPECT_EQ(forwardFlops(zooLayers("bert-base")), forwardFlops(zooLayers("bert-base:128")));
}

TEST(ModelZoo, TensorsKeepTheReferenceNamesAndStages) {
  const std::vector<LayerShape> layers = modelLayers("resnet50", ModelInput{});
  EXPECT_EQ(layers.front().tensorNames.front(), "conv1.weight");
  EXPECT_EQ(layers[5].stage, "layer1.0");
  EXPECT_TRUE(isZooModel("gpt2:512"));
  EXPECT_FALSE(isZooModel("resnet20"));
}

TEST(ModelZoo, BadNamesListTheKnownModels) {
  try {
    zooLayers("resnet5O");
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("known: resnet50, resnet101"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(zooLayers("bert-base:0"), InvalidArgument);
  EXPECT_THROW(zooLayers("bert-base:12x"), InvalidArgument);
  EXPECT_THROW(zooLayers("resnet50:128"), InvalidArgument);
  EXPECT_THROW(modelLayers("vgg19"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::sched
