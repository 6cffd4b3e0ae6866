#include "tetrad/train/data/dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tetrad/core/error.h"
#include "tetrad/train/data/cifar_reader.h"
#include "tetrad/train/data/idx_reader.h"
#include "tetrad/train/data/npy_dataset.h"
#include "tetrad/train/data/synthetic.h"

namespace tetrad::train {
namespace {

// "DIR/BASE.gz" when it exists, else "DIR/BASE" when it exists, else the .gz
// name (so that the error names the file the package installs).
std::string idxPath(const std::string& dir, const std::string& base) {
  std::filesystem::path gz = std::filesystem::path(dir) / (base + ".gz");
  std::filesystem::path plain = std::filesystem::path(dir) / base;
  std::error_code ec;
  if (!std::filesystem::exists(gz, ec) && std::filesystem::exists(plain, ec)) {
    return plain.string();
  }
  return gz.string();
}

Dataset loadIdxSplit(const std::string& dir, const std::string& prefix, const std::string& hint) {
  IdxArray images = readIdxFile(idxPath(dir, prefix + "-images-idx3-ubyte"), 3, hint);
  std::string labelPath = idxPath(dir, prefix + "-labels-idx1-ubyte");
  IdxArray labels = readIdxFile(labelPath, 1, hint);
  TETRAD_CHECK(images.dims[0] == labels.dims[0], InvalidArgument,
               "data files in '{}' disagree: {} {} images but {} labels; {}", dir, prefix,
               images.dims[0], labels.dims[0], hint);
  Dataset data;
  data.channels = 1;
  data.height = static_cast<int>(images.dims[1]);
  data.width = static_cast<int>(images.dims[2]);
  data.numClasses = 10;
  data.images = std::move(images.data);
  data.labels = std::move(labels.data);
  data.validate(labelPath);
  return data;
}

DataSplits loadIdxDataset(const std::string& name, const std::string& dir,
                          const std::string& hint) {
  DataSplits splits;
  splits.train = loadIdxSplit(dir, "train", hint);
  splits.test = loadIdxSplit(dir, "t10k", hint);
  return splits;
}

}  // namespace

void Dataset::truncate(size_t count) {
  if (count == 0 || count >= size()) return;
  labels.resize(count);
  if (holdsFloats()) {
    values.resize(count * sampleSize());
  } else {
    images.resize(count * sampleSize());
  }
}

void Dataset::validate(const std::string& what) const {
  TETRAD_CHECK(channels > 0 && height > 0 && width > 0 && numClasses > 1, InvalidArgument,
               "{}: invalid sample shape {}x{}x{} with {} classes", what, channels, height, width,
               numClasses);
  if (holdsFloats()) {
    TETRAD_CHECK(images.empty() && values.size() == labels.size() * sampleSize(), InvalidArgument,
                 "{}: {} input values for {} samples of {}", what, values.size(), labels.size(),
                 sampleSize());
  } else {
    TETRAD_CHECK(images.size() == labels.size() * sampleSize(), InvalidArgument,
                 "{}: {} image bytes for {} samples of {} bytes", what, images.size(),
                 labels.size(), sampleSize());
  }
  auto bad = std::find_if(labels.begin(), labels.end(),
                          [&](uint8_t label) { return label >= numClasses; });
  TETRAD_CHECK(bad == labels.end(), InvalidArgument,
               "{} is corrupt: sample {} has label {}, expected < {}", what, bad - labels.begin(),
               bad == labels.end() ? 0 : int(*bad), numClasses);
}

const std::vector<std::string>& knownDatasets() {
  static const std::vector<std::string> names = {"fashion-mnist", "mnist", "cifar10", "synthetic",
                                                 "npy"};
  return names;
}

std::string defaultDataDir(const std::string& name) {
  if (name == "fashion-mnist") return "/usr/share/datasets/fashion-mnist";
  if (name == "mnist") return "/usr/share/datasets/mnist";
  if (name == "cifar10") return "/usr/share/datasets/cifar10";
  return "";
}

DataSplits loadData(const DataOptions& options) {
  const std::string& name = options.name;
  std::string dir = options.dir.empty() ? defaultDataDir(name) : options.dir;
  DataSplits splits;
  if (name == "fashion-mnist") {
    splits = loadIdxDataset(name, dir,
                            "install the Debian package dataset-fashion-mnist or pass --data-dir "
                            "DIR holding train-images-idx3-ubyte.gz and the three other IDX files");
  } else if (name == "mnist") {
    splits = loadIdxDataset(name, dir,
                            "pass --data-dir DIR holding the four MNIST IDX files "
                            "(train-images-idx3-ubyte[.gz], ...)");
  } else if (name == "cifar10") {
    splits = loadCifar10(dir);
  } else if (name == "npy") {
    splits = loadNpyDataset(dir);  // npy_dataset.h: DIR/train_x.npy, ...
  } else if (name == "synthetic") {
    SyntheticOptions synthetic;
    synthetic.seed = options.seed;
    if (options.trainSamples) synthetic.trainSamples = options.trainSamples;
    if (options.testSamples) synthetic.testSamples = options.testSamples;
    splits = makeSynthetic(synthetic);
  } else {
    std::string known;
    for (const std::string& n : knownDatasets()) known += (known.empty() ? "" : ", ") + n;
    TETRAD_FAIL(InvalidArgument, "unknown dataset '{}' (use one of {})", name, known);
  }
  splits.name = name;
  splits.train.truncate(options.trainSamples);
  splits.test.truncate(options.testSamples);
  computeNormalization(splits);
  return splits;
}

void computeNormalization(DataSplits& splits) {
  const Dataset& train = splits.train;
  size_t plane = size_t(train.height) * train.width;
  splits.mean.assign(train.channels, 0.f);
  splits.stddev.assign(train.channels, 1.f);
  if (train.size() == 0) return;
  for (int c = 0; c < train.channels; ++c) {
    double sum = 0, sumSquares = 0;
    for (size_t i = 0; i < train.size(); ++i) {
      const size_t first = i * train.sampleSize() + c * plane;
      for (size_t j = 0; j < plane; ++j) {
        const double v =
            train.holdsFloats() ? double(train.values[first + j]) : train.images[first + j] / 255.0;
        sum += v;
        sumSquares += v * v;
      }
    }
    double n = double(train.size()) * plane;
    double mean = sum / n;
    double variance = std::max(sumSquares / n - mean * mean, 1e-12);
    splits.mean[c] = static_cast<float>(mean);
    splits.stddev[c] = static_cast<float>(std::sqrt(variance));
  }
}

}  // namespace tetrad::train
