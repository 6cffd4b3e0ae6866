// Own data as NPY files: `tetrad train --data npy --data-dir DIR`.
//
// DIR holds train_x.npy, train_y.npy, test_x.npy and test_y.npy (read with
// npy_reader.h). Inputs: uint8 or float32 arrays of shape [N, D] (viewed as
// 1×1×D), [N, H, W] (1×H×W) or [N, C, H, W]; train and test inputs must have
// the same shape and dtype. uint8 pixels are scaled to [0, 1] and float32
// values are kept as they are (every one must be finite); either way batches
// are then standardised per channel with the training set's mean and
// standard deviation (dataset.h). Labels: int64 or uint8 vectors of N class
// ids in [0, 255]; the number of classes is the largest training label + 1
// (at least 2), and every test label must be below it. Every mismatch —
// lengths, shapes, dtypes, labels out of range, non-finite values — throws
// InvalidArgument naming the file.
//
// Writing the files from a torchvision-style dataset (docs/training.md):
//   x = numpy.stack([numpy.asarray(img, numpy.uint8) for img, _ in ds]); y = ...
//
// Thread-safety: free function without shared state.
#pragma once

#include <string>

#include "tetrad/train/data/dataset.h"

namespace tetrad::train {

// Reads the four files of `dir` into train and test splits (name, mean and
// stddev are filled by loadData()).
DataSplits loadNpyDataset(const std::string& dir);

}  // namespace tetrad::train
