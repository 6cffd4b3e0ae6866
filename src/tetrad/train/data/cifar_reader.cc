#include "tetrad/train/data/cifar_reader.h"

#include <filesystem>

#include "tetrad/core/error.h"
#include "tetrad/train/data/idx_reader.h"

namespace tetrad::train {
namespace {
const char* kCifarHint =
    "pass --data-dir DIR holding the CIFAR-10 binary version (data_batch_1.bin ... "
    "data_batch_5.bin, test_batch.bin)";
}  // namespace

void readCifarBatch(const std::string& path, Dataset& data) {
  // zlib reads plain files as they are, and gzip-compressed batches too.
  ByteBuffer bytes = readMaybeGzip(path, kCifarHint);
  TETRAD_CHECK(!bytes.empty() && bytes.size() % kCifarRecordBytes == 0, InvalidArgument,
               "data file '{}' is truncated or corrupt: {} bytes is not a whole number of "
               "{}-byte CIFAR-10 records; {}",
               path, bytes.size(), kCifarRecordBytes, kCifarHint);
  if (data.size() == 0) {
    data.channels = 3;
    data.height = 32;
    data.width = 32;
    data.numClasses = 10;
  }
  size_t records = bytes.size() / kCifarRecordBytes;
  data.labels.reserve(data.labels.size() + records);
  data.images.reserve(data.images.size() + records * (kCifarRecordBytes - 1));
  for (size_t r = 0; r < records; ++r) {
    const auto* record = reinterpret_cast<const uint8_t*>(bytes.data() + r * kCifarRecordBytes);
    TETRAD_CHECK(record[0] < 10, InvalidArgument,
                 "data file '{}' is corrupt: record {} has label {}, expected 0..9; {}", path, r,
                 int(record[0]), kCifarHint);
    data.labels.push_back(record[0]);
    data.images.insert(data.images.end(), record + 1, record + kCifarRecordBytes);
  }
}

DataSplits loadCifar10(const std::string& dir) {
  std::filesystem::path root(dir);
  std::error_code ec;
  if (!std::filesystem::exists(root / "test_batch.bin", ec) &&
      std::filesystem::exists(root / "cifar-10-batches-bin" / "test_batch.bin", ec)) {
    root /= "cifar-10-batches-bin";
  }
  DataSplits splits;
  for (int i = 1; i <= 5; ++i) {
    readCifarBatch((root / ("data_batch_" + std::to_string(i) + ".bin")).string(), splits.train);
  }
  readCifarBatch((root / "test_batch.bin").string(), splits.test);
  splits.train.validate("CIFAR-10 training batches");
  splits.test.validate("CIFAR-10 test batch");
  return splits;
}

}  // namespace tetrad::train
