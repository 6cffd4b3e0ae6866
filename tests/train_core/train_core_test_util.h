// Helpers shared by the tests of train/'s LibTorch-free core (and, through
// tests/train/train_test_util.h, by the training tests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tetrad/train/data/dataset.h"

namespace tetrad::train::testing {

// A fresh empty folder under the system temp dir.
std::string makeTempDir(const std::string& name);

// Labels of `n` samples over 10 classes in a fixed, uneven pattern (for
// partitions and samplers).
std::vector<uint8_t> patternLabels(size_t n);

// Small seeded synthetic data (28x28, 10 classes).
DataSplits smallSynthetic(size_t trainSamples, size_t testSamples, uint64_t seed = 7);

}  // namespace tetrad::train::testing
