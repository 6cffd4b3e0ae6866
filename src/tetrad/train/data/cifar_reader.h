// CIFAR-10 binary batches ("CIFAR-10 binary version": data_batch_1.bin ...
// data_batch_5.bin and test_batch.bin). Each record is one label byte
// followed by 3072 pixel bytes: the red, green and blue 32x32 planes.
//
// A missing file, or one whose size is not a whole number of records, throws
// InvalidArgument naming the file and what to do.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <vector>

#include "tetrad/train/data/dataset.h"

namespace tetrad::train {

constexpr size_t kCifarRecordBytes = 1 + 3 * 32 * 32;

// Appends the records of one batch file to `data` (which must be empty or
// hold 3x32x32 images with 10 classes).
void readCifarBatch(const std::string& path, Dataset& data);

// Reads the five training batches and the test batch from `dir` (or from
// `dir`/cifar-10-batches-bin when the files are there).
DataSplits loadCifar10(const std::string& dir);

}  // namespace tetrad::train
