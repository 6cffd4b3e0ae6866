// Layer tables of tetrad's models and their slots (model_shapes.h).
#include "tetrad/sched/model_shapes.h"

#include <cmath>

#include "tetrad/core/error.h"
#include "tetrad/sched/model_zoo.h"

namespace tetrad::sched {
namespace {

LayerShape linear(std::string name, uint64_t in, uint64_t out) {
  return {std::move(name),
          {in * out, out},
          2.0 * double(in) * double(out),
          {{int64_t(out), int64_t(in)}, {int64_t(out)}},
          false,
          {},
          {}};
}

// A k×k convolution producing an h×w map.
LayerShape conv(std::string name, uint64_t in, uint64_t out, uint64_t k, uint64_t h, uint64_t w,
                bool bias) {
  LayerShape layer{std::move(name),
                   {out * in * k * k},
                   2.0 * double(in * out * k * k * h * w),
                   {{int64_t(out), int64_t(in), int64_t(k), int64_t(k)}},
                   false,
                   {},
                   {}};
  if (bias) {
    layer.tensorElements.push_back(out);
    layer.tensorShapes.push_back({int64_t(out)});
  }
  return layer;
}

LayerShape batchNorm(std::string name, uint64_t channels, uint64_t h, uint64_t w) {
  return {std::move(name),
          {channels, channels},
          4.0 * double(channels * h * w),
          {{int64_t(channels)}, {int64_t(channels)}},
          /*batchNorm=*/true,
          {},
          {}};
}

std::vector<LayerShape> mlp(const ModelInput& in) {
  const uint64_t pixels = uint64_t(in.channels) * uint64_t(in.height) * uint64_t(in.width);
  return {linear("fc1", pixels, 256), linear("fc2", 256, 128),
          linear("fc3", 128, uint64_t(in.classes))};
}

std::vector<LayerShape> cnn(const ModelInput& in) {
  TETRAD_CHECK(in.height >= 4 && in.width >= 4, InvalidArgument,
               "model cnn needs images of at least 4x4, got {}x{}", in.height, in.width);
  const uint64_t h = uint64_t(in.height), w = uint64_t(in.width);
  return {conv("conv1", uint64_t(in.channels), 32, 5, h, w, true),
          conv("conv2", 32, 64, 5, h / 2, w / 2, true), linear("fc1", 64 * (h / 4) * (w / 4), 512),
          linear("fc2", 512, uint64_t(in.classes))};
}

std::vector<LayerShape> resnet20(const ModelInput& input) {
  TETRAD_CHECK(input.height >= 4 && input.width >= 4, InvalidArgument,
               "model resnet20 needs images of at least 4x4, got {}x{}", input.height, input.width);
  std::vector<LayerShape> layers;
  uint64_t h = uint64_t(input.height), w = uint64_t(input.width);
  layers.push_back(conv("conv", uint64_t(input.channels), 16, 3, h, w, false));
  layers.push_back(batchNorm("bn", 16, h, w));
  uint64_t in = 16;
  for (int stage = 0; stage < 3; ++stage) {
    const uint64_t out = uint64_t{16} << stage;
    for (int b = 0; b < 3; ++b) {
      const uint64_t stride = (stage > 0 && b == 0) ? 2 : 1;
      h = (h - 1) / stride + 1;
      w = (w - 1) / stride + 1;
      const std::string block = fmt::format("stage{}_block{}.", stage + 1, b + 1);
      layers.push_back(conv(block + "conv1", in, out, 3, h, w, false));
      layers.push_back(batchNorm(block + "bn1", out, h, w));
      layers.push_back(conv(block + "conv2", out, out, 3, h, w, false));
      layers.push_back(batchNorm(block + "bn2", out, h, w));
      if (stride != 1 || in != out) {
        layers.push_back(conv(block + "shortcut.conv", in, out, 1, h, w, false));
        layers.push_back(batchNorm(block + "shortcut.bn", out, h, w));
      }
      in = out;
    }
  }
  layers.push_back(linear("fc", 64, uint64_t(input.classes)));
  return layers;
}

}  // namespace

std::vector<LayerShape> modelLayers(std::string_view model) {
  if (isZooModel(model)) return zooLayers(model);
  if (model == "resnet20") return resnet20({3, 32, 32, 10});
  return modelLayers(model, ModelInput{});
}

std::vector<LayerShape> modelLayers(std::string_view model, const ModelInput& input) {
  TETRAD_CHECK(input.channels > 0 && input.height > 0 && input.width > 0 && input.classes > 1,
               InvalidArgument, "invalid input shape {}x{}x{} with {} classes for model {}",
               input.channels, input.height, input.width, input.classes, model);
  if (isZooModel(model)) return zooLayers(model);
  if (model == "mlp") return mlp(input);
  if (model == "cnn") return cnn(input);
  if (model == "resnet20") return resnet20(input);
  std::string known = "mlp, cnn, resnet20";
  for (const std::string& name : zooModelNames()) known += ", " + name;
  TETRAD_FAIL(InvalidArgument, "unknown model '{}' (known: {})", model, known);
}

uint64_t parameterCount(std::span<const LayerShape> layers) {
  uint64_t count = 0;
  for (const LayerShape& layer : layers) {
    for (uint64_t elements : layer.tensorElements) count += elements;
  }
  return count;
}

Workload makeWorkload(std::span<const LayerShape> layers, const ComputeAssumption& compute) {
  TETRAD_CHECK(std::isfinite(compute.flopsPerSecond) && compute.flopsPerSecond > 0 &&
                   compute.batch > 0 && std::isfinite(compute.backwardFactor) &&
                   compute.backwardFactor > 0,
               InvalidArgument,
               "compute assumption: need speed > 0, batch > 0 and backward factor > 0, got "
               "{} FLOP/s, batch {}, factor {}",
               compute.flopsPerSecond, compute.batch, compute.backwardFactor);
  Workload workload;
  for (const LayerShape& layer : layers) {
    TETRAD_CHECK(!layer.tensorElements.empty(), InvalidArgument,
                 "model layer '{}' has no parameter tensors", layer.name);
    workload.layerForwardSeconds.push_back(layer.forwardFlops * compute.batch /
                                           compute.flopsPerSecond);
  }
  for (size_t l = layers.size(); l-- > 0;) {
    const std::vector<uint64_t>& tensors = layers[l].tensorElements;
    for (size_t t = tensors.size(); t-- > 0;) {
      const bool first = t + 1 == tensors.size();
      workload.slots.push_back(
          {tensors[t] * sizeof(float),
           first ? compute.backwardFactor * workload.layerForwardSeconds[l] : 0.0,
           static_cast<int>(l)});
    }
  }
  return workload;
}

}  // namespace tetrad::sched
