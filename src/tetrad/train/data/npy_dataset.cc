// loadNpyDataset() (npy_dataset.h): four NPY files -> datasets (bytes or floats).
#include "tetrad/train/data/npy_dataset.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "tetrad/core/error.h"
#include "tetrad/train/data/npy_reader.h"

namespace tetrad::train {
namespace {

struct SampleShape {
  int channels = 1, height = 1, width = 1;
  bool operator==(const SampleShape&) const = default;
};

SampleShape sampleShapeOf(const NpyArray& x, const std::string& path) {
  TETRAD_CHECK(x.type == NpyType::kUint8 || x.type == NpyType::kFloat32, InvalidArgument,
               "'{}': inputs must be uint8 or float32, got {}", path, toString(x.type));
  TETRAD_CHECK(x.shape.size() >= 2 && x.shape.size() <= 4, InvalidArgument,
               "'{}': inputs must have shape [N, D], [N, H, W] or [N, C, H, W], got {} dimensions",
               path, x.shape.size());
  for (size_t i = 1; i < x.shape.size(); ++i) {
    TETRAD_CHECK(x.shape[i] > 0 && x.shape[i] <= (1u << 24), InvalidArgument,
                 "'{}': dimension {} of the inputs is {}", path, i, x.shape[i]);
  }
  SampleShape s;
  if (x.shape.size() == 2) s.width = int(x.shape[1]);
  if (x.shape.size() == 3) s.height = int(x.shape[1]), s.width = int(x.shape[2]);
  if (x.shape.size() == 4) {
    s.channels = int(x.shape[1]), s.height = int(x.shape[2]), s.width = int(x.shape[3]);
  }
  TETRAD_CHECK(uint64_t(s.channels) * s.height * s.width <= (1u << 24), InvalidArgument,
               "'{}': samples of {}x{}x{} values are too large", path, s.channels, s.height,
               s.width);
  return s;
}

std::vector<uint8_t> labelsOf(const NpyArray& y, uint64_t samples, const std::string& path) {
  TETRAD_CHECK(y.type == NpyType::kInt64 || y.type == NpyType::kUint8, InvalidArgument,
               "'{}': labels must be int64 or uint8, got {}", path, toString(y.type));
  TETRAD_CHECK(y.shape.size() == 1, InvalidArgument,
               "'{}': labels must be a vector [N], got {} dimensions", path, y.shape.size());
  TETRAD_CHECK(y.shape[0] == samples, InvalidArgument,
               "'{}' has {} labels but its inputs have {} samples", path, y.shape[0], samples);
  std::vector<uint8_t> labels(samples);
  for (uint64_t i = 0; i < samples; ++i) {
    int64_t value = 0;
    if (y.type == NpyType::kUint8) {
      value = int64_t(std::to_integer<uint8_t>(y.data[i]));
    } else {
      std::memcpy(&value, y.data.data() + 8 * i, 8);
    }
    TETRAD_CHECK(value >= 0 && value <= 255, InvalidArgument,
                 "'{}': label {} of sample {} is out of range [0, 255]", path, value, i);
    labels[i] = uint8_t(value);
  }
  return labels;
}

Dataset splitOf(const std::string& dir, const std::string& split, SampleShape* shape,
                NpyType* type) {
  const std::string xPath = (std::filesystem::path(dir) / (split + "_x.npy")).string();
  const std::string yPath = (std::filesystem::path(dir) / (split + "_y.npy")).string();
  NpyArray x = readNpyFile(xPath);
  const SampleShape s = sampleShapeOf(x, xPath);
  if (split == "test") {
    TETRAD_CHECK(x.type == *type, InvalidArgument,
                 "'{}': test inputs are {} but training inputs {}", xPath, toString(x.type),
                 toString(*type));
    TETRAD_CHECK(s == *shape, InvalidArgument,
                 "'{}': test samples are {}x{}x{} but training samples {}x{}x{}", xPath, s.channels,
                 s.height, s.width, shape->channels, shape->height, shape->width);
  }
  *shape = s;
  *type = x.type;
  Dataset data;
  data.channels = s.channels;
  data.height = s.height;
  data.width = s.width;
  data.labels = labelsOf(readNpyFile(yPath), x.shape[0], yPath);
  if (x.type == NpyType::kFloat32) {
    data.values.resize(x.data.size() / sizeof(float));
    std::memcpy(data.values.data(), x.data.data(), x.data.size());
    const auto bad = std::find_if(data.values.begin(), data.values.end(),
                                  [](float v) { return !std::isfinite(v); });
    TETRAD_CHECK(
        bad == data.values.end(), InvalidArgument, "'{}': input value {} (sample {}) is not finite",
        xPath, bad == data.values.end() ? 0.f : *bad,
        (bad - data.values.begin()) / std::max<ptrdiff_t>(1, ptrdiff_t(data.sampleSize())));
  } else {
    data.images.resize(x.data.size());
    std::memcpy(data.images.data(), x.data.data(), x.data.size());
  }
  return data;
}

}  // namespace

DataSplits loadNpyDataset(const std::string& dir) {
  TETRAD_CHECK(!dir.empty(), InvalidArgument,
               "--data npy needs --data-dir DIR holding train_x.npy, train_y.npy, test_x.npy "
               "and test_y.npy");
  DataSplits splits;
  SampleShape shape;
  NpyType type = NpyType::kUint8;
  splits.train = splitOf(dir, "train", &shape, &type);
  splits.test = splitOf(dir, "test", &shape, &type);
  TETRAD_CHECK(splits.train.size() > 0, InvalidArgument, "'{}/train_x.npy' holds no samples", dir);
  TETRAD_CHECK(splits.test.size() > 0, InvalidArgument, "'{}/test_x.npy' holds no samples", dir);
  const int classes = 1 + *std::max_element(splits.train.labels.begin(), splits.train.labels.end());
  TETRAD_CHECK(classes >= 2, InvalidArgument,
               "'{}/train_y.npy': every label is 0; at least two classes are needed", dir);
  splits.train.numClasses = classes;
  splits.test.numClasses = classes;
  splits.train.validate(dir + "/train_y.npy");
  splits.test.validate(dir + "/test_y.npy (labels must be below the " + std::to_string(classes) +
                       " classes of train_y.npy)");
  return splits;
}

}  // namespace tetrad::train
