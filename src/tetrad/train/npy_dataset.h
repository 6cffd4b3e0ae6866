// Own data as NPY files: `tetrad train --data npy --data-dir DIR`.
//
// DIR holds train_x.npy, train_y.npy, test_x.npy and test_y.npy (read with
// npy_reader.h). Inputs: uint8 arrays of shape [N, D] (viewed as 1×1×D),
// [N, H, W] (1×H×W) or [N, C, H, W]; train and test samples must have the
// same shape. Labels: int64 or uint8 vectors of N class ids in [0, 255]; the
// number of classes is the largest training label + 1 (at least 2), and every
// test label must be below it. float32 inputs are refused (Unsupported):
// tetrad's datasets hold bytes (dataset.h); save pixels as uint8. Every
// mismatch — lengths, shapes, dtypes, labels out of range — throws
// InvalidArgument naming the file.
//
// Writing the files from a torchvision-style dataset (docs/training.md):
//   x = numpy.stack([numpy.asarray(img, numpy.uint8) for img, _ in ds]); y = ...
//
// Thread-safety: free function without shared state.
#pragma once

#include <string>

#include "tetrad/train/dataset.h"

namespace tetrad::train {

// Reads the four files of `dir` into train and test splits (name, mean and
// stddev are filled by loadData()).
DataSplits loadNpyDataset(const std::string& dir);

}  // namespace tetrad::train
