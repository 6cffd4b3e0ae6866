// NPY reader: round trips, strict header checks, and a seeded fuzz loop
// (every mutation of a valid file either parses or throws InvalidArgument).
#include "tetrad/train/data/npy_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "tetrad/core/error.h"
#include "tetrad/train/data/npy_dataset.h"

namespace tetrad::train {
namespace {

ByteBuffer fileBytes(const std::string& header, size_t dataBytes, uint8_t major = 1) {
  std::string h = header;
  const size_t prefix = major == 1 ? 10 : 12;
  h.append(63 - (prefix + h.size()) % 64, ' ');
  h.push_back('\n');
  ByteBuffer out;
  const char magic[] = "\x93NUMPY";
  for (int i = 0; i < 6; ++i) out.push_back(std::byte(magic[i]));
  out.push_back(std::byte(major));
  out.push_back(std::byte(0));
  const uint32_t length = uint32_t(h.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out.push_back(std::byte(length >> (8 * i)));
  for (char c : h) out.push_back(std::byte(c));
  for (size_t i = 0; i < dataBytes; ++i) out.push_back(std::byte(i * 7));
  return out;
}

std::string parseError(const ByteBuffer& bytes) {
  try {
    parseNpy(bytes, "x.npy");
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "";
}

TEST(NpyReader, ParsesEveryDtypeAndShape) {
  auto a = parseNpy(fileBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 48),
                    "a.npy");
  EXPECT_EQ(a.type, NpyType::kFloat32);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(a.data.size(), 48u);
  EXPECT_EQ(a.data[5], std::byte(35));
  auto b =
      parseNpy(fileBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", 5), "b.npy");
  EXPECT_EQ(b.type, NpyType::kUint8);
  EXPECT_EQ(b.shape, (std::vector<uint64_t>{5}));
  auto c =
      parseNpy(fileBytes("{'shape': (), 'fortran_order': False, 'descr': '<i8'}", 8, 2), "c.npy");
  EXPECT_EQ(c.type, NpyType::kInt64);
  EXPECT_TRUE(c.shape.empty());
  auto d = parseNpy(fileBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 0, 3), }", 0),
                    "d.npy");
  EXPECT_EQ(d.count(), 0u);
}

TEST(NpyReader, RefusesWhatItDoesNotRead) {
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16))
                .find("Fortran order"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8))
                .find("dtype '>f4'"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16))
                .find("not supported"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 12))
                .find("truncated"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12))
                .find("12 bytes of data"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'shape': (2,), }", 8)).find("fortran_order"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                                 "'shape': (2,), }",
                                 8))
                .find("repeated"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8))
                .find("dimension"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                                 "(99999999999999999999,), }",
                                 8))
                .find("overflows"),
            std::string::npos);
  EXPECT_NE(parseError(fileBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                                 "(4294967296, 4294967296), }",
                                 8))
                .find("too large"),
            std::string::npos);
  ByteBuffer wrongMagic = fileBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1,), }", 1);
  wrongMagic[1] = std::byte('X');
  EXPECT_NE(parseError(wrongMagic).find("wrong magic"), std::string::npos);
  ByteBuffer version = wrongMagic;
  version[1] = std::byte('N');
  version[6] = std::byte(9);
  EXPECT_NE(parseError(version).find("version 9.0"), std::string::npos);
  EXPECT_NE(parseError(ByteBuffer(4)).find("x.npy"), std::string::npos);
}

TEST(NpyReader, EveryMutationParsesOrThrowsInvalidArgument) {
  const ByteBuffer valid =
      fileBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 48);
  std::mt19937_64 rng(42);
  int refused = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    ByteBuffer bytes = valid;
    const int kind = trial % 3;
    if (kind == 0) {
      bytes.resize(rng() % bytes.size());
    } else {
      const int flips = 1 + int(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        // Mostly in the header, where the parser works.
        const size_t at = rng() % (kind == 1 ? std::min<size_t>(bytes.size(), 74) : bytes.size());
        bytes[at] = std::byte(rng());
      }
    }
    try {
      NpyArray a = parseNpy(bytes, "fuzz.npy");
      EXPECT_EQ(a.data.size(), a.count() * a.itemSize());
    } catch (const InvalidArgument& error) {
      ++refused;
      EXPECT_NE(std::string(error.what()).find("fuzz.npy"), std::string::npos) << error.what();
    }
  }
  EXPECT_GT(refused, 10000);
}

TEST(NpyReader, WriteThenReadFile) {
  const std::string dir = ::testing::TempDir() + "/npy_rw";
  std::filesystem::create_directories(dir);
  NpyArray a;
  a.type = NpyType::kFloat32;
  a.shape = {2, 3};
  a.data.resize(24);
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = std::byte(i);
  writeNpyFile(dir + "/a.npy", a);
  NpyArray b = readNpyFile(dir + "/a.npy");
  EXPECT_EQ(b.type, a.type);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.data, a.data);
  EXPECT_THROW(readNpyFile(dir + "/missing.npy"), InvalidArgument);
}

void writeDataset(const std::string& dir, uint64_t trainN, uint64_t testN, int64_t badLabel) {
  std::filesystem::create_directories(dir);
  auto images = [](uint64_t n) {
    NpyArray x;
    x.shape = {n, 4, 5};
    x.data.resize(n * 20);
    return x;
  };
  auto labels = [](uint64_t n, int64_t last) {
    NpyArray y;
    y.type = NpyType::kInt64;
    y.shape = {n};
    y.data.resize(8 * n);
    for (uint64_t i = 0; i < n; ++i) {
      const int64_t v = i + 1 == n ? last : int64_t(i % 3);
      std::memcpy(y.data.data() + 8 * i, &v, 8);
    }
    return y;
  };
  writeNpyFile(dir + "/train_x.npy", images(trainN));
  writeNpyFile(dir + "/train_y.npy", labels(trainN, 2));
  writeNpyFile(dir + "/test_x.npy", images(testN));
  writeNpyFile(dir + "/test_y.npy", labels(testN == 0 ? 0 : testN, badLabel));
}

TEST(NpyDataset, LoadsAndChecks) {
  const std::string root = ::testing::TempDir() + "/npy_data";
  writeDataset(root + "/good", 12, 6, 1);
  DataSplits s = loadNpyDataset(root + "/good");
  EXPECT_EQ(s.train.size(), 12u);
  EXPECT_EQ(s.test.size(), 6u);
  EXPECT_EQ(s.train.numClasses, 3);
  EXPECT_EQ(s.train.channels, 1);
  EXPECT_EQ(s.train.height, 4);
  EXPECT_EQ(s.train.width, 5);
  writeDataset(root + "/label", 12, 6, 3);  // test label 3 with 3 classes
  try {
    loadNpyDataset(root + "/label");
    FAIL() << "a test label out of range was accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("test_y.npy"), std::string::npos) << error.what();
  }
  writeDataset(root + "/negative", 12, 6, -1);
  EXPECT_THROW(loadNpyDataset(root + "/negative"), InvalidArgument);
  // Mismatched lengths: 6 test images, 5 labels.
  writeDataset(root + "/length", 12, 6, 1);
  NpyArray y;
  y.type = NpyType::kUint8;
  y.shape = {5};
  y.data.resize(5);
  writeNpyFile(root + "/length/test_y.npy", y);
  try {
    loadNpyDataset(root + "/length");
    FAIL() << "mismatched lengths were accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("test_y.npy' has 5 labels but its inputs have 6"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(loadNpyDataset(""), InvalidArgument);
  EXPECT_THROW(loadNpyDataset(root + "/absent"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::train
