#include "tetrad/train/data/synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "tetrad/core/error.h"
#include "tetrad/train/seeding.h"

namespace tetrad::train {
namespace {

Dataset makeSplit(const SyntheticOptions& o, const std::vector<std::vector<float>>& prototypes,
                  size_t count, uint64_t stream) {
  Dataset data;
  data.channels = o.channels;
  data.height = o.height;
  data.width = o.width;
  data.numClasses = o.numClasses;
  std::mt19937_64 rng(mixSeed(o.seed, stream));
  std::normal_distribution<float> noise(0.f, static_cast<float>(o.noise));
  data.labels.resize(count);
  data.images.resize(count * data.sampleSize());
  for (size_t i = 0; i < count; ++i) {
    auto label = static_cast<uint8_t>(rng() % o.numClasses);
    data.labels[i] = label;
    uint8_t* image = data.images.data() + i * data.sampleSize();
    for (size_t j = 0; j < data.sampleSize(); ++j) {
      float v = prototypes[label][j] + noise(rng);
      image[j] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
    }
  }
  return data;
}

}  // namespace

DataSplits makeSynthetic(const SyntheticOptions& o) {
  TETRAD_CHECK(o.channels > 0 && o.height > 0 && o.width > 0 && o.numClasses > 1 &&
                   o.numClasses <= 256 && o.trainSamples > 0 && o.testSamples > 0,
               InvalidArgument, "invalid synthetic dataset {}x{}x{}, {} classes, {}+{} samples",
               o.channels, o.height, o.width, o.numClasses, o.trainSamples, o.testSamples);
  size_t sampleSize = size_t(o.channels) * o.height * o.width;
  std::mt19937_64 rng(mixSeed(o.seed, 0));
  std::uniform_real_distribution<float> pixel(0.f, 255.f);
  std::vector<std::vector<float>> prototypes(o.numClasses, std::vector<float>(sampleSize));
  for (auto& prototype : prototypes) {
    for (float& v : prototype) v = pixel(rng);
  }
  DataSplits splits;
  splits.train = makeSplit(o, prototypes, o.trainSamples, 1);
  splits.test = makeSplit(o, prototypes, o.testSamples, 2);
  return splits;
}

}  // namespace tetrad::train
