// ScriptedModel (scripted_model.h): a TorchScript module as a Model.
#include "tetrad/train/compute/scripted_model.h"

#include <torch/csrc/jit/runtime/graph_executor.h>

#include <filesystem>
#include <mutex>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/flop_counter.h"

namespace tetrad::train {
namespace {

std::string firstLine(const std::string& text) {
  const size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

std::string shapeText(const torch::Tensor& t) {
  std::string text = "[";
  for (int64_t d = 0; d < t.dim(); ++d) text += (d ? ", " : "") + std::to_string(t.size(d));
  return text + "]";
}

// A deterministic probe batch of one sample (no generator is touched).
torch::Tensor probeInput(const InputShape& shape) {
  const int64_t n = int64_t(shape.channels) * shape.height * shape.width;
  return torch::sin(torch::arange(n, torch::kFloat32))
      .reshape({1, shape.channels, shape.height, shape.width});
}

torch::Tensor forwardOf(torch::jit::Module& module, const torch::Tensor& x) {
  return module.forward({x}).toTensor();
}

// The holder module for `name`'s parent path, created on the way.
torch::nn::Module& holderFor(torch::nn::Module& root, const std::string& name, std::string* leaf) {
  torch::nn::Module* node = &root;
  size_t begin = 0;
  for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', begin)) {
    const std::string part = name.substr(begin, dot - begin);
    if (auto* child = node->named_children().find(part)) {
      node = child->get();
    } else {
      node = node->register_module(part, std::make_shared<torch::nn::Module>(part)).get();
    }
    begin = dot + 1;
  }
  *leaf = name.substr(begin);
  return *node;
}

}  // namespace

ScriptedModel::ScriptedModel(const std::string& path, const InputShape& shape) : path_(path) {
  static std::once_flag eager;
  std::call_once(eager, [] { torch::jit::setGraphExecutorOptimize(false); });
  std::error_code ec;
  TETRAD_CHECK(std::filesystem::is_regular_file(path, ec), InvalidArgument,
               "--model '{}': no such file (a TorchScript module saved with "
               "torch.jit.script(model).save(path), or one of mlp, cnn, resnet20)",
               path);
  try {
    module_ = torch::jit::load(path);
  } catch (const c10::Error& e) {
    TETRAD_FAIL(InvalidArgument,
                "--model '{}' is not a TorchScript module (save one with "
                "torch.jit.script(model).save(path)): {}",
                path, firstLine(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    TETRAD_FAIL(InvalidArgument, "--model '{}' is not a TorchScript module: {}", path,
                firstLine(e.what()));
  }
  TETRAD_CHECK(module_.find_method("forward").has_value(), InvalidArgument,
               "--model '{}': the module has no forward() method", path);
  registerTensors();
  chooseStages(shape);
  train(true);
}

void ScriptedModel::registerTensors() {
  size_t count = 0;
  for (const auto& p : module_.named_parameters(/*recurse=*/true)) {
    const torch::Tensor& tensor = p.value;
    TETRAD_CHECK(tensor.scalar_type() == torch::kFloat32, InvalidArgument,
                 "--model '{}': parameter '{}' is {} (tetrad trains float32 parameters; "
                 "call model.float() before saving)",
                 path_, p.name, std::string(c10::toString(tensor.scalar_type())));
    TETRAD_CHECK(tensor.requires_grad(), InvalidArgument,
                 "--model '{}': parameter '{}' does not require a gradient (frozen "
                 "parameters are not supported; save it as a buffer instead)",
                 path_, p.name);
    std::string leaf;
    holderFor(*this, p.name, &leaf).register_parameter(leaf, tensor);
    ++count;
  }
  TETRAD_CHECK(count > 0, InvalidArgument, "--model '{}': the module has no parameters to train",
               path_);
  for (const auto& b : module_.named_buffers(/*recurse=*/true)) {
    std::string leaf;
    holderFor(*this, b.name, &leaf).register_buffer(leaf, b.value);
  }
}

void ScriptedModel::chooseStages(const InputShape& shape) {
  torch::NoGradGuard noGrad;
  module_.eval();
  const torch::Tensor x = probeInput(shape);
  torch::Tensor full;
  try {
    full = forwardOf(module_, x);
  } catch (const std::exception& e) {
    const auto* c10 = dynamic_cast<const c10::Error*>(&e);
    TETRAD_FAIL(InvalidArgument, "--model '{}' cannot take {}x{}x{} inputs: {}", path_,
                shape.channels, shape.height, shape.width,
                firstLine(c10 ? c10->what_without_backtrace() : e.what()));
  }
  // numClasses 0: any number of classes (scriptedWorkload()).
  const bool classesFit = shape.numClasses == 0
                              ? full.dim() == 2 && full.size(1) >= 2
                              : full.dim() == 2 && full.size(1) == shape.numClasses;
  TETRAD_CHECK(classesFit && full.size(0) == 1 && full.is_floating_point(), InvalidArgument,
               "--model '{}' gives an output of shape {} for one {}x{}x{} input; tetrad needs "
               "logits [batch, {}] for the data set's {} classes",
               path_, shapeText(full), shape.channels, shape.height, shape.width, shape.numClasses,
               shape.numClasses);

  // The stages: top-level children, when they are forward()'s chain.
  std::vector<std::pair<std::string, torch::jit::Module>> children;
  for (const auto& child : module_.named_children()) children.emplace_back(child.name, child.value);
  std::string why;
  if (children.empty()) {
    why = "the module has no top-level children";
  } else if (module_.named_parameters(/*recurse=*/false).size() > 0) {
    why = "the module owns parameters outside its children";
  } else {
    try {
      torch::Tensor y = x;
      for (auto& [name, child] : children) {
        TETRAD_CHECK(child.find_method("forward").has_value(), InvalidArgument,
                     "child {} has no forward()", name);
        y = forwardOf(child, y);
      }
      if (!y.sizes().equals(full.sizes()) || !torch::equal(y, full))
        why = "forward() is not its top-level children run one after the other";
    } catch (const std::exception&) {
      why = "forward() is not its top-level children run one after the other";
    }
  }
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> modules;
  if (why.empty()) {
    std::vector<torch::jit::Module> pending;
    std::vector<std::string> pendingNames;
    for (auto& [name, child] : children) {
      pending.push_back(child);
      pendingNames.push_back(name);
      if (child.named_parameters(/*recurse=*/true).size() == 0) continue;
      stageChildren_.push_back(std::move(pending));
      modules.push_back(std::move(pendingNames));
      names.push_back(name);
      pending.clear();
      pendingNames.clear();
    }
    for (size_t i = 0; i < pending.size(); ++i) {  // parameterless tail
      stageChildren_.back().push_back(pending[i]);
      modules.back().push_back(pendingNames[i]);
    }
  } else {
    stageChildren_.push_back({});
    names.push_back("forward");
    std::vector<std::string> all;
    for (const auto& p : module_.named_parameters(/*recurse=*/true))
      all.push_back(p.name.substr(0, p.name.find('.')));
    modules.push_back(std::move(all));
  }

  // FLOPs per stage on the probe sample.
  std::vector<double> flops;
  torch::Tensor y = x;
  for (size_t s = 0; s < stageChildren_.size(); ++s) {
    FlopCounter counter;
    y = forwardStage(int(s), y);
    flops.push_back(counter.flops());
  }
  for (size_t s = 0; s < names.size(); ++s) addStage(names[s], modules[s], flops[s]);

  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  stagesNote_ = why.empty() ? fmt::format("{} forward stage{} (top-level children): {}",
                                          names.size(), names.size() == 1 ? "" : "s", list)
                            : fmt::format(
                                  "1 forward stage ({}; schedules cannot gate the next forward "
                                  "layer by layer)",
                                  why);
}

torch::Tensor ScriptedModel::forwardStage(int stage, torch::Tensor x) {
  std::vector<torch::jit::Module>& children = stageChildren_.at(size_t(stage));
  if (children.empty()) return forwardOf(module_, x);
  for (torch::jit::Module& child : children) x = forwardOf(child, x);
  return x;
}

void ScriptedModel::train(bool on) {
  Model::train(on);
  module_.train(on);
}

ModelPtr loadScriptedModel(const std::string& path, const InputShape& shape) {
  return std::make_shared<ScriptedModel>(path, shape);
}

model::Workload scriptedWorkload(const std::string& path, int channels, int height, int width) {
  TETRAD_CHECK(channels > 0 && height > 0 && width > 0, InvalidArgument,
               "invalid input shape {}x{}x{} for model {}", channels, height, width, path);
  const ScriptedModel model(path, {channels, height, width, /*numClasses=*/0});
  model::Workload w;
  w.name = modelShortName(path);
  for (const auto& p : model.named_parameters()) {
    w.tensors.push_back({uint64_t(p.value().numel()), p.value().sizes().vec()});
    w.parameters += uint64_t(p.value().numel());
  }
  w.forwardFlopsPerSample = model.forwardFlops();
  return w;
}

}  // namespace tetrad::train
