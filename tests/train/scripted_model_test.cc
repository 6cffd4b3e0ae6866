// TorchScript models (scripted_model.h) and the FLOP counter behind them.
// The modules are written by make_scripted_models.py (python3-torch), once
// per build folder, into ./scripted_models (ctest runs in the build folder).
#include "tetrad/train/compute/scripted_model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/bench/plain_loop.h"
#include "tetrad/train/compute/flop_counter.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;

// The folder of the generated modules; written on first use (a temporary
// folder renamed into place, so concurrent test processes never see half).
const std::string& modelDir() {
  static const std::string dir = [] {
    const fs::path final = fs::absolute("scripted_models");
    if (fs::exists(final / "not-a-module.pt")) return final.string();  // written last
    const fs::path script = fs::path(__FILE__).parent_path() / "make_scripted_models.py";
    const fs::path staging = testing::makeTempDir("scripted-models");
    const std::string command =
        "/usr/bin/python3 '" + script.string() + "' '" + staging.string() + "' > /dev/null";
    if (std::system(command.c_str()) != 0) throw std::runtime_error("cannot run " + command);
    std::error_code ec;
    fs::rename(staging, final, ec);  // fails harmlessly when another process won
    return final.string();
  }();
  return dir;
}

std::string modelFile(const std::string& name) {
  return modelDir() + "/" + name + ".pt";
}

std::string errorOf(const std::string& file, const InputShape& shape = {}) {
  try {
    loadScriptedModel(file, shape);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

TEST(FlopCounter, CountsWhatTheBuiltInModelsDeclare) {
  torch::NoGradGuard noGrad;
  for (std::string name : {"mlp", "cnn"}) {
    ModelPtr model = makeModel(name, {});
    model->eval();
    FlopCounter counter;
    model->forward(torch::randn({3, 1, 28, 28}));
    EXPECT_DOUBLE_EQ(counter.flops(), 3 * model->forwardFlops()) << name;
    EXPECT_EQ(counter.ops(), name == "mlp" ? 3 : 4) << name;
  }
  FlopCounter counter;  // element-wise ops are not counted
  (torch::ones({4, 4}) + 1).relu();
  EXPECT_EQ(counter.flops(), 0);
  EXPECT_THROW(FlopCounter{}, Error);  // one per thread
}

TEST(ScriptedModel, CnnHasTheBuiltInCnnsTensorsStagesAndFlops) {
  const ModelPtr builtIn = makeModel("cnn", {});
  const ModelPtr scripted = loadScriptedModel(modelFile("cnn"), {});
  EXPECT_EQ(scripted->parameterCount(), builtIn->parameterCount());
  EXPECT_DOUBLE_EQ(scripted->forwardFlops(), builtIn->forwardFlops());
  ASSERT_EQ(scripted->stageCount(), 4);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(scripted->stageName(s), builtIn->stageName(s));
    EXPECT_DOUBLE_EQ(scripted->stageFlops(s), builtIn->stageFlops(s)) << s;
  }
  EXPECT_EQ(scripted->stageOfParameter("conv2.0.weight"), 1);
  EXPECT_EQ(scripted->stageOfParameter("fc1.1.bias"), 2);
  const auto& note = dynamic_cast<const ScriptedModel&>(*scripted).stagesNote();
  EXPECT_NE(note.find("4 forward stages"), std::string::npos) << note;
  // Same tensors in the same order, under the module's own names.
  const auto names = scripted->named_parameters().keys();
  EXPECT_EQ(names.front(), "conv1.0.weight");
  EXPECT_EQ(names.back(), "fc2.bias");
  // The stage chain is forward().
  torch::NoGradGuard noGrad;
  const torch::Tensor x = torch::randn({2, 1, 28, 28});
  torch::Tensor y = x;
  for (int s = 0; s < 4; ++s) y = scripted->forwardStage(s, y);
  EXPECT_TRUE(torch::equal(y, scripted->forward(x)));
}

TEST(ScriptedModel, ParametersAndBuffersAreTheModulesOwnTensors) {
  const ModelPtr model = loadScriptedModel(modelFile("bn"), {});
  EXPECT_EQ(model->stageCount(), 2);
  const auto buffers = model->named_buffers();
  const torch::Tensor* mean = buffers.find("features.1.running_mean");
  ASSERT_NE(mean, nullptr);
  const torch::Tensor before = mean->clone();
  model->train();
  model->forward(torch::randn({4, 1, 28, 28}) + 3);  // train mode: statistics move
  EXPECT_FALSE(torch::equal(before, *mean));
  // An in-place update of a registered parameter changes the module's output.
  torch::NoGradGuard noGrad;
  model->eval();
  const torch::Tensor x = torch::randn({2, 1, 28, 28});
  const torch::Tensor out = model->forward(x);
  model->named_parameters()["classifier.1.bias"].add_(1);
  EXPECT_TRUE(torch::allclose(model->forward(x), out + 1));
}

TEST(ScriptedModel, ForwardThatIsNotTheChainOfItsChildrenIsOneStage) {
  const ModelPtr model = loadScriptedModel(modelFile("custom"), {});
  EXPECT_EQ(model->stageCount(), 1);
  EXPECT_EQ(model->stageOfParameter("fc2.weight"), 0);
  EXPECT_DOUBLE_EQ(model->forwardFlops(), 2.0 * (784 * 64 + 64 * 64 + 64 * 10));
  const auto& note = dynamic_cast<const ScriptedModel&>(*model).stagesNote();
  EXPECT_NE(note.find("1 forward stage (forward() is not"), std::string::npos) << note;
}

TEST(ScriptedModel, RefusesWhatItCannotTrain) {
  EXPECT_NE(errorOf(modelDir() + "/absent.pt").find("no such file"), std::string::npos);
  EXPECT_NE(errorOf(modelFile("not-a-module")).find("is not a TorchScript module"),
            std::string::npos);
  EXPECT_NE(errorOf(modelFile("wrong")).find("gives an output of shape [1, 7]"), std::string::npos);
  EXPECT_NE(errorOf(modelFile("frozen")).find("'fc1.weight' does not require a gradient"),
            std::string::npos);
  EXPECT_NE(errorOf(modelFile("cnn"), {3, 32, 32, 10}).find("cannot take 3x32x32 inputs"),
            std::string::npos);
}

// As BspEquivalence (equivalence_test.cc) for a model file: 2 ranks with
// batch 8 end where one process with batch 16 ends.
TEST(ScriptedModel, BspRanksEqualOneProcessWithTheirBatch) {
  at::set_num_threads(1);
  const int64_t iterations = 6;
  const int workers = 2;
  DataSplits data = testing::smallSynthetic(512, 64);
  TrainConfig config = testing::equivalenceConfig(modelFile("cnn"), 8, iterations, "ring");
  std::vector<std::vector<float>> parameters(workers);
  LaunchOptions options;
  options.cluster = config.cluster;
  options.workers = workers;
  launch(options,
         [&](Transport& t) { parameters[t.rank()] = testing::trainRank(config, data, t); });
  PlainLoopResult reference = trainPlainLoop(config, data, 8 * workers, iterations);
  PlainLoopResult start = trainPlainLoop(config, data, 8 * workers, 0);
  for (int r = 0; r < workers; ++r) {
    EXPECT_LT(testing::maxRelativeDifference(parameters[r], reference.parameters), 1e-4) << r;
  }
  EXPECT_GT(testing::maxRelativeDifference(start.parameters, reference.parameters), 1e-3);
}

}  // namespace
}  // namespace tetrad::train
