// Dataset readers: IDX (gzip and plain), CIFAR-10 binary batches, synthetic
// data, and their errors on missing, truncated and corrupt files.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "tetrad/core/error.h"
#include "tetrad/train/data/cifar_reader.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/data/idx_reader.h"
#include "tetrad/train/data/synthetic.h"
#include "train_core_test_util.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;
using testing::makeTempDir;

std::vector<uint8_t> pattern(size_t count, int salt) {
  std::vector<uint8_t> data(count);
  for (size_t i = 0; i < count; ++i) data[i] = uint8_t((i * 7 + salt) % 251);
  return data;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void writeAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Writes a small IDX dataset (train: n images, test: m images of 6x5).
void writeIdxDataset(const std::string& dir, uint32_t n, uint32_t m, bool gzip) {
  std::string ext = gzip ? ".gz" : "";
  std::vector<uint8_t> trainLabels(n), testLabels(m);
  for (uint32_t i = 0; i < n; ++i) trainLabels[i] = uint8_t(i % 10);
  for (uint32_t i = 0; i < m; ++i) testLabels[i] = uint8_t((i + 3) % 10);
  writeIdxFile(dir + "/train-images-idx3-ubyte" + ext, {n, 6, 5}, pattern(n * 30, 1), gzip);
  writeIdxFile(dir + "/train-labels-idx1-ubyte" + ext, {n}, trainLabels, gzip);
  writeIdxFile(dir + "/t10k-images-idx3-ubyte" + ext, {m, 6, 5}, pattern(m * 30, 2), gzip);
  writeIdxFile(dir + "/t10k-labels-idx1-ubyte" + ext, {m}, testLabels, gzip);
}

template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no InvalidArgument thrown)";
}

TEST(IdxReader, RoundTripsGzipAndPlain) {
  std::string dir = makeTempDir("idx");
  for (bool gzip : {true, false}) {
    std::string path = dir + (gzip ? "/a.gz" : "/a");
    writeIdxFile(path, {4, 3, 2}, pattern(24, 5), gzip);
    IdxArray array = readIdxFile(path, 3, "hint");
    EXPECT_EQ(array.dims, (std::vector<uint32_t>{4, 3, 2}));
    EXPECT_EQ(array.data, pattern(24, 5));
  }
}

TEST(IdxReader, TruncatedGzipNamesTheFile) {
  std::string dir = makeTempDir("idx-trunc");
  std::string path = dir + "/train-images-idx3-ubyte.gz";
  writeIdxFile(path, {50, 28, 28}, pattern(50 * 784, 3), true);
  std::string bytes = readAll(path);
  writeAll(path, bytes.substr(0, bytes.size() / 2));
  std::string message = errorOf([&] { readIdxFile(path, 3, "re-install it"); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  EXPECT_NE(message.find("re-install it"), std::string::npos) << message;
}

TEST(IdxReader, TruncatedPayloadAndTrailingBytesAreErrors) {
  std::string dir = makeTempDir("idx-payload");
  std::string path = dir + "/labels";
  writeIdxFile(path, {100}, pattern(100, 0), false);
  std::string bytes = readAll(path);
  writeAll(path, bytes.substr(0, bytes.size() - 10));
  EXPECT_NE(errorOf([&] { readIdxFile(path, 1, "h"); }).find("header declares 100 bytes"),
            std::string::npos);
  writeAll(path, bytes + "xyz");
  EXPECT_NE(errorOf([&] { readIdxFile(path, 1, "h"); }).find("3 unexpected bytes"),
            std::string::npos);
}

TEST(IdxReader, CorruptFilesAreErrors) {
  std::string dir = makeTempDir("idx-corrupt");
  std::string path = dir + "/x.gz";
  writeIdxFile(path, {10, 8, 8}, pattern(640, 9), true);
  std::string bytes = readAll(path);
  // Damage the deflate stream (past the 10-byte gzip header).
  for (size_t i = 12; i < bytes.size() - 8; i += 3) bytes[i] = char(bytes[i] ^ 0x5a);
  writeAll(path, bytes);
  EXPECT_NE(errorOf([&] { readIdxFile(path, 3, "h"); }).find(path), std::string::npos);
  // Not IDX at all.
  writeAll(path, "hello, this is not an IDX file");
  EXPECT_NE(errorOf([&] { readIdxFile(path, 3, "h"); }).find("not an IDX file"), std::string::npos);
  // Wrong rank (labels file given where images are expected).
  writeIdxFile(path, {10}, pattern(10, 0), true);
  EXPECT_NE(errorOf([&] { readIdxFile(path, 3, "h"); }).find("expected 3"), std::string::npos);
}

TEST(IdxReader, MissingFileNamesTheFileAndTheFix) {
  std::string message = errorOf([] {
    loadData({"fashion-mnist", "/nonexistent/fmnist", 0, 0, 1});
  });
  EXPECT_NE(message.find("/nonexistent/fmnist/train-images-idx3-ubyte.gz"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--data-dir"), std::string::npos) << message;
}

TEST(Dataset, LoadsIdxDatasetsFromADataDir) {
  for (bool gzip : {true, false}) {
    std::string dir = makeTempDir(gzip ? "mnist-gz" : "mnist-plain");
    writeIdxDataset(dir, 40, 12, gzip);
    DataSplits splits = loadData({"mnist", dir, 0, 0, 1});
    EXPECT_EQ(splits.train.size(), 40u);
    EXPECT_EQ(splits.test.size(), 12u);
    EXPECT_EQ(splits.train.height, 6);
    EXPECT_EQ(splits.train.width, 5);
    EXPECT_EQ(splits.train.labels[13], 3);
    EXPECT_EQ(splits.test.labels[0], 3);
    EXPECT_EQ(splits.train.images, pattern(40 * 30, 1));
    ASSERT_EQ(splits.mean.size(), 1u);
    EXPECT_GT(splits.stddev[0], 0.f);
    DataSplits subset = loadData({"mnist", dir, 16, 5, 1});
    EXPECT_EQ(subset.train.size(), 16u);
    EXPECT_EQ(subset.test.size(), 5u);
  }
}

TEST(Dataset, MismatchedLabelsAreErrors) {
  std::string dir = makeTempDir("mismatch");
  writeIdxDataset(dir, 40, 12, true);
  writeIdxFile(dir + "/train-labels-idx1-ubyte.gz", {39}, pattern(39, 0), true);
  EXPECT_NE(errorOf([&] {
              loadData({"mnist", dir, 0, 0, 1});
            }).find("40 images but 39 labels"),
            std::string::npos);
  std::vector<uint8_t> bad(40, 2);
  bad[17] = 12;
  writeIdxFile(dir + "/train-labels-idx1-ubyte.gz", {40}, bad, true);
  EXPECT_NE(errorOf([&] {
              loadData({"mnist", dir, 0, 0, 1});
            }).find("sample 17 has label 12"),
            std::string::npos);
}

TEST(Dataset, RealFashionMnistWhenInstalled) {
  std::string dir = defaultDataDir("fashion-mnist");
  if (!fs::exists(dir + "/t10k-labels-idx1-ubyte.gz")) GTEST_SKIP() << "not installed: " << dir;
  IdxArray labels = readIdxFile(dir + "/t10k-labels-idx1-ubyte.gz", 1, "");
  EXPECT_EQ(labels.dims, (std::vector<uint32_t>{10000}));
  IdxArray images = readIdxFile(dir + "/t10k-images-idx3-ubyte.gz", 3, "");
  EXPECT_EQ(images.dims, (std::vector<uint32_t>{10000, 28, 28}));
  std::vector<int> counts(10);
  for (uint8_t l : labels.data) counts.at(l)++;
  for (int c : counts) EXPECT_EQ(c, 1000);  // Fashion-MNIST's test set is balanced
}

void writeCifarBatch(const std::string& path, int records, int salt) {
  std::string bytes;
  for (int r = 0; r < records; ++r) {
    bytes.push_back(char((r + salt) % 10));
    for (size_t i = 0; i < 3072; ++i) bytes.push_back(char((i + r + salt) % 256));
  }
  writeAll(path, bytes);
}

TEST(CifarReader, ReadsBatchesAndRejectsBadOnes) {
  std::string dir = makeTempDir("cifar");
  for (int i = 1; i <= 5; ++i) {
    writeCifarBatch(dir + "/data_batch_" + std::to_string(i) + ".bin", 3, i);
  }
  writeCifarBatch(dir + "/test_batch.bin", 4, 0);
  DataSplits splits = loadData({"cifar10", dir, 0, 0, 1});
  EXPECT_EQ(splits.train.size(), 15u);
  EXPECT_EQ(splits.test.size(), 4u);
  EXPECT_EQ(splits.train.channels, 3);
  EXPECT_EQ(splits.train.height, 32);
  EXPECT_EQ(splits.train.labels[4], (1 + 2) % 10);  // batch 2 (salt 2), record 1
  EXPECT_EQ(splits.train.images[3 * 3072 + 5], uint8_t((5 + 0 + 2) % 256));
  EXPECT_EQ(splits.mean.size(), 3u);

  std::string bytes = readAll(dir + "/test_batch.bin");
  writeAll(dir + "/test_batch.bin", bytes.substr(0, bytes.size() - 100));
  std::string message = errorOf([&] { loadData({"cifar10", dir, 0, 0, 1}); });
  EXPECT_NE(message.find("test_batch.bin"), std::string::npos) << message;
  EXPECT_NE(message.find("whole number"), std::string::npos) << message;
  bytes[3073] = char(10);  // label of record 1
  writeAll(dir + "/test_batch.bin", bytes);
  EXPECT_NE(errorOf([&] {
              loadData({"cifar10", dir, 0, 0, 1});
            }).find("record 1 has label 10"),
            std::string::npos);
  fs::remove(dir + "/data_batch_3.bin");
  EXPECT_NE(errorOf([&] {
              loadData({"cifar10", dir, 0, 0, 1});
            }).find("data_batch_3.bin"),
            std::string::npos);
}

TEST(Synthetic, IsSeededAndBalancedEnough) {
  DataSplits a = testing::smallSynthetic(500, 100, 3);
  DataSplits b = testing::smallSynthetic(500, 100, 3);
  DataSplits c = testing::smallSynthetic(500, 100, 4);
  EXPECT_EQ(a.train.images, b.train.images);
  EXPECT_EQ(a.test.labels, b.test.labels);
  EXPECT_NE(a.train.images, c.train.images);
  std::vector<int> counts(10);
  for (uint8_t l : a.train.labels) counts.at(l)++;
  for (int n : counts) EXPECT_GT(n, 20);
  EXPECT_NO_THROW(a.train.validate("synthetic"));
}

TEST(Dataset, UnknownNameIsAnError) {
  EXPECT_NE(errorOf([] {
              loadData({"imagenet", "", 0, 0, 1});
            }).find("unknown dataset"),
            std::string::npos);
}

}  // namespace
}  // namespace tetrad::train
