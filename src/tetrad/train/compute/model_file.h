// Whether a --model value names a model file (a TorchScript module, see
// scripted_model.h) rather than one of the built-in models (models.h), and a
// model file's workload for the cost models. LibTorch-free, so that
// configuration code and the advisor's command can ask.
//
// isModelFile()/modelShortName(): pure functions, thread-safe.
// scriptedWorkload(): loads the module (scripted_model.cc); any thread.
#pragma once

#include <filesystem>
#include <string>

#include "tetrad/model/workload.h"

namespace tetrad::train {

// A value ending in ".pt" or ".pth", or holding a '/'.
inline bool isModelFile(const std::string& name) {
  return name.ends_with(".pt") || name.ends_with(".pth") || name.find('/') != std::string::npos;
}

// The short name of a model for run names and banners: the file's stem for
// a model file ("nets/wide.pt" -> "wide"), the name itself otherwise.
inline std::string modelShortName(const std::string& name) {
  return isModelFile(name) ? std::filesystem::path(name).stem().string() : name;
}

// The tensors (shapes, in parameter order) and counted forward FLOPs per
// sample of the module in `path` for channels × height × width inputs, as
// the cost models of model/ see a model (name: the file's stem). Any number
// of classes >= 2 is accepted. Throws InvalidArgument as ScriptedModel does.
model::Workload scriptedWorkload(const std::string& path, int channels, int height, int width);

}  // namespace tetrad::train
