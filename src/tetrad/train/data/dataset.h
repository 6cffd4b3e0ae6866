// Datasets: labelled images held as bytes, loaded once per process.
//
// A Dataset keeps its images as unsigned bytes in NCHW order (60 000
// Fashion-MNIST images take 47 MB) and its labels as bytes; batches are
// gathered and normalised into float tensors by the trainer (train/data/batch.h).
// Under SimGrid every rank is an actor of one process: they all read the same
// const Dataset and differ only in which indices they sample (partition.h).
//
// loadData() reads a named dataset: "fashion-mnist" (default folder
// /usr/share/datasets/fashion-mnist, the Debian package dataset-fashion-mnist),
// "mnist", "cifar10" (binary batches), "synthetic" (seeded, see
// synthetic.h) or "npy" (own data: four NPY files in DataOptions::dir, see
// npy_dataset.h). A missing, truncated or corrupt file throws InvalidArgument
// with one line naming the file and what to do.
//
// Thread-safety: a loaded Dataset is immutable and may be read from any
// thread or actor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tetrad::train {

struct Dataset {
  int channels = 0;
  int height = 0;
  int width = 0;
  int numClasses = 0;
  std::vector<uint8_t> images;  // size() * sampleSize() bytes, NCHW
  // Float samples instead of bytes (NPY float32 inputs, npy_dataset.h):
  // size() * sampleSize() values, NCHW; `images` is then empty.
  std::vector<float> values;
  std::vector<uint8_t> labels;  // one per sample, < numClasses

  bool holdsFloats() const { return !values.empty(); }
  size_t size() const { return labels.size(); }
  size_t sampleSize() const { return size_t(channels) * height * width; }
  // Keeps the first `count` samples (no-op when count is 0 or >= size()).
  void truncate(size_t count);
  // Throws InvalidArgument (naming `what`) unless images and labels agree
  // with the shape and every label is < numClasses.
  void validate(const std::string& what) const;
};

struct DataSplits {
  std::string name;  // "fashion-mnist", ...
  Dataset train;
  Dataset test;
  // Per-channel mean and standard deviation of the training pixels scaled to
  // [0, 1] (float samples: of their values as they are); batches are
  // normalised with them.
  std::vector<float> mean;
  std::vector<float> stddev;
};

struct DataOptions {
  std::string name = "fashion-mnist";
  std::string dir;          // empty: the dataset's default folder
  size_t trainSamples = 0;  // 0: all; otherwise the first N training samples
  size_t testSamples = 0;   // 0: all; otherwise the first N test samples
  uint64_t seed = 1;        // synthetic data only
};

// Names loadData() accepts.
const std::vector<std::string>& knownDatasets();
// The folder read when DataOptions::dir is empty ("" for synthetic).
std::string defaultDataDir(const std::string& name);

DataSplits loadData(const DataOptions& options);

// Fills mean/stddev of `splits` from its training images.
void computeNormalization(DataSplits& splits);

}  // namespace tetrad::train
