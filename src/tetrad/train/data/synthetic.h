// Synthetic datasets: seeded, learnable image classification data for tests
// and scaling runs, with no files.
//
// Each class has a random prototype image; a sample is its class prototype
// plus Gaussian pixel noise, clipped to bytes. With the default noise a small
// model separates the classes well above chance within a few hundred steps,
// and the same seed always gives the same bytes.
//
// Thread-safety: a free function without shared state.
#pragma once

#include <cstdint>

#include "tetrad/train/data/dataset.h"

namespace tetrad::train {

struct SyntheticOptions {
  int channels = 1;
  int height = 28;
  int width = 28;
  int numClasses = 10;
  size_t trainSamples = 8192;
  size_t testSamples = 2048;
  double noise = 80;  // standard deviation of the pixel noise, in byte units
  uint64_t seed = 1;
};

DataSplits makeSynthetic(const SyntheticOptions& options);

}  // namespace tetrad::train
