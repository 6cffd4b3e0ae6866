#include "tetrad/train/compute/models.h"

#include <mutex>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/scripted_model.h"

namespace tetrad::train {
namespace {

namespace nn = torch::nn;

double linearFlops(int64_t in, int64_t out) {
  return 2.0 * double(in) * double(out);
}
double convFlops(int64_t in, int64_t out, int64_t kernel, int64_t height, int64_t width) {
  return 2.0 * double(in) * double(out) * double(kernel * kernel) * double(height * width);
}

class Mlp : public Model {
 public:
  explicit Mlp(const InputShape& s) {
    int64_t in = int64_t(s.channels) * s.height * s.width;
    fc1_ = register_module("fc1", nn::Linear(in, 256));
    fc2_ = register_module("fc2", nn::Linear(256, 128));
    fc3_ = register_module("fc3", nn::Linear(128, s.numClasses));
    addStage("fc1", {"fc1"}, linearFlops(in, 256));
    addStage("fc2", {"fc2"}, linearFlops(256, 128));
    addStage("fc3", {"fc3"}, linearFlops(128, s.numClasses));
  }
  torch::Tensor forwardStage(int stage, torch::Tensor x) override {
    switch (stage) {
      case 0:
        return torch::relu(fc1_(x.flatten(1)));
      case 1:
        return torch::relu(fc2_(x));
      default:
        return fc3_(x);
    }
  }

 private:
  nn::Linear fc1_{nullptr}, fc2_{nullptr}, fc3_{nullptr};
};

class Cnn : public Model {
 public:
  explicit Cnn(const InputShape& s) {
    TETRAD_CHECK(s.height >= 4 && s.width >= 4, InvalidArgument,
                 "model cnn needs images of at least 4x4, got {}x{}", s.height, s.width);
    conv1_ = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(s.channels, 32, 5).padding(2)));
    conv2_ = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(32, 64, 5).padding(2)));
    int64_t h = s.height / 4, w = s.width / 4;
    fc1_ = register_module("fc1", nn::Linear(64 * h * w, 512));
    fc2_ = register_module("fc2", nn::Linear(512, s.numClasses));
    addStage("conv1", {"conv1"}, convFlops(s.channels, 32, 5, s.height, s.width));
    addStage("conv2", {"conv2"}, convFlops(32, 64, 5, s.height / 2, s.width / 2));
    addStage("fc1", {"fc1"}, linearFlops(64 * h * w, 512));
    addStage("fc2", {"fc2"}, linearFlops(512, s.numClasses));
  }
  torch::Tensor forwardStage(int stage, torch::Tensor x) override {
    switch (stage) {
      case 0:
        return torch::max_pool2d(torch::relu(conv1_(x)), 2);
      case 1:
        return torch::max_pool2d(torch::relu(conv2_(x)), 2);
      case 2:
        return torch::relu(fc1_(x.flatten(1)));
      default:
        return fc2_(x);
    }
  }

 private:
  nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  nn::Linear fc1_{nullptr}, fc2_{nullptr};
};

nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

class BasicBlock : public nn::Module {
 public:
  // `height`/`width`: the block's input size; updated to its output size.
  BasicBlock(int64_t in, int64_t out, int64_t stride, int64_t& height, int64_t& width,
             double& flops) {
    conv1_ = register_module("conv1", conv3x3(in, out, stride));
    bn1_ = register_module("bn1", nn::BatchNorm2d(out));
    conv2_ = register_module("conv2", conv3x3(out, out, 1));
    bn2_ = register_module("bn2", nn::BatchNorm2d(out));
    height = (height - 1) / stride + 1;
    width = (width - 1) / stride + 1;
    flops += convFlops(in, out, 3, height, width) + convFlops(out, out, 3, height, width);
    if (stride != 1 || in != out) {
      shortcut_ = register_module(
          "shortcut",
          nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)),
                         nn::BatchNorm2d(out)));
      flops += convFlops(in, out, 1, height, width);
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor y = torch::relu(bn1_(conv1_(x)));
    y = bn2_(conv2_(y));
    return torch::relu(y + (shortcut_ ? shortcut_->forward(x) : x));
  }

 private:
  nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  nn::Sequential shortcut_{nullptr};
};

class ResNet20 : public Model {
 public:
  explicit ResNet20(const InputShape& s) {
    TETRAD_CHECK(s.height >= 4 && s.width >= 4, InvalidArgument,
                 "model resnet20 needs images of at least 4x4, got {}x{}", s.height, s.width);
    int64_t h = s.height, w = s.width;
    conv_ = register_module("conv", conv3x3(s.channels, 16, 1));
    bn_ = register_module("bn", nn::BatchNorm2d(16));
    addStage("conv", {"conv", "bn"}, convFlops(s.channels, 16, 3, h, w));
    int64_t in = 16;
    for (int stage = 0; stage < 3; ++stage) {
      int64_t out = 16 << stage;
      for (int b = 0; b < 3; ++b) {
        int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
        const std::string name = fmt::format("stage{}_block{}", stage + 1, b + 1);
        double flops = 0;
        blocks_.push_back(
            register_module(name, std::make_shared<BasicBlock>(in, out, stride, h, w, flops)));
        addStage(name, {name}, flops);
        in = out;
      }
    }
    fc_ = register_module("fc", nn::Linear(64, s.numClasses));
    addStage("fc", {"fc"}, linearFlops(64, s.numClasses));
  }
  torch::Tensor forwardStage(int stage, torch::Tensor x) override {
    if (stage == 0) return torch::relu(bn_(conv_(x)));
    if (stage <= int(blocks_.size())) return blocks_[size_t(stage - 1)]->forward(x);
    return fc_(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
  }

 private:
  nn::Conv2d conv_{nullptr};
  nn::BatchNorm2d bn_{nullptr};
  std::vector<std::shared_ptr<BasicBlock>> blocks_;
  nn::Linear fc_{nullptr};
};

}  // namespace

torch::Tensor Model::forward(torch::Tensor images) {
  for (int stage = 0; stage < stageCount(); ++stage) images = forwardStage(stage, images);
  return images;
}

void Model::addStage(std::string name, std::vector<std::string> modules, double flops) {
  stageNames_.push_back(std::move(name));
  stageModules_.push_back(std::move(modules));
  stageFlops_.push_back(flops);
  forwardFlops_ += flops;
}

int Model::stageOfParameter(const std::string& name) const {
  const std::string module = name.substr(0, name.find('.'));
  for (size_t s = 0; s < stageModules_.size(); ++s) {
    for (const std::string& m : stageModules_[s]) {
      if (m == module) return int(s);
    }
  }
  TETRAD_FAIL(InvalidArgument, "parameter '{}' belongs to no stage of the model", name);
}

int64_t Model::parameterCount() const {
  int64_t count = 0;
  for (const torch::Tensor& p : parameters()) count += p.numel();
  return count;
}

ModelPtr makeModel(const std::string& name, const InputShape& shape) {
  TETRAD_CHECK(shape.channels > 0 && shape.height > 0 && shape.width > 0 && shape.numClasses > 1,
               InvalidArgument, "invalid input shape {}x{}x{} with {} classes for model {}",
               shape.channels, shape.height, shape.width, shape.numClasses, name);
  if (name == "mlp") return std::make_shared<Mlp>(shape);
  if (name == "cnn") return std::make_shared<Cnn>(shape);
  if (name == "resnet20") return std::make_shared<ResNet20>(shape);
  if (isModelFile(name)) return loadScriptedModel(name, shape);
  TETRAD_FAIL(InvalidArgument,
              "unknown model '{}' (use mlp, cnn, resnet20 or a TorchScript FILE.pt)", name);
}

ModelPtr makeSeededModel(const std::string& name, const InputShape& shape, uint64_t seed) {
  // LibTorch's global generator is shared by every thread of the process.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  torch::manual_seed(seed);
  return makeModel(name, shape);
}

}  // namespace tetrad::train
