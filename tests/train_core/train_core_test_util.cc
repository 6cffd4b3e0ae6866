#include "train_core_test_util.h"

#include <unistd.h>

#include <filesystem>

#include "tetrad/train/data/synthetic.h"

namespace tetrad::train::testing {

std::vector<uint8_t> patternLabels(size_t n) {
  std::vector<uint8_t> l(n);
  for (size_t i = 0; i < n; ++i) l[i] = uint8_t((i * 31 + i / 7) % 10);
  return l;
}

std::string makeTempDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("tetrad-train-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

DataSplits smallSynthetic(size_t trainSamples, size_t testSamples, uint64_t seed) {
  SyntheticOptions options;
  options.trainSamples = trainSamples;
  options.testSamples = testSamples;
  options.seed = seed;
  DataSplits splits = makeSynthetic(options);
  splits.name = "synthetic";
  computeNormalization(splits);
  return splits;
}

}  // namespace tetrad::train::testing
