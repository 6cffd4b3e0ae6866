#include "tetrad/train/data/idx_reader.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

constexpr uint8_t kUnsignedByte = 0x08;
// Larger IDX files than this are refused as corrupt (the largest real one,
// MNIST-style training images, is 47 MB).
constexpr uint64_t kMaxIdxBytes = uint64_t{4} << 30;

uint32_t bigEndian32(ConstBytes bytes) {
  return (uint32_t(bytes[0]) << 24) | (uint32_t(bytes[1]) << 16) | (uint32_t(bytes[2]) << 8) |
         uint32_t(bytes[3]);
}

}  // namespace

ByteBuffer readMaybeGzip(const std::string& path, const std::string& hint) {
  std::error_code ec;
  TETRAD_CHECK(std::filesystem::is_regular_file(path, ec), InvalidArgument,
               "data file '{}' is missing; {}", path, hint);
  gzFile file = gzopen(path.c_str(), "rb");
  TETRAD_CHECK(file != nullptr, InvalidArgument, "cannot open data file '{}'; {}", path, hint);
  ByteBuffer out;
  std::vector<std::byte> chunk(1 << 20);
  while (true) {
    int n = gzread(file, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n < 0) {
      int code = 0;
      std::string message = gzerror(file, &code);
      gzclose(file);
      TETRAD_FAIL(InvalidArgument, "data file '{}' is corrupt ({}); {}", path, message, hint);
    }
    if (n == 0) break;
    out.insert(out.end(), chunk.begin(), chunk.begin() + n);
    TETRAD_CHECK(out.size() <= kMaxIdxBytes, InvalidArgument,
                 "data file '{}' is larger than {} bytes, not a dataset file; {}", path,
                 kMaxIdxBytes, hint);
  }
  // gzread returns 0 at a clean end and also when a gzip stream stops early;
  // the status tells them apart (Z_BUF_ERROR: truncated).
  int code = Z_OK;
  std::string message = gzerror(file, &code);
  int closeCode = gzclose(file);
  TETRAD_CHECK(code == Z_OK || code == Z_STREAM_END, InvalidArgument,
               "data file '{}' is truncated or corrupt ({}); {}", path, message, hint);
  TETRAD_CHECK(closeCode == Z_OK, InvalidArgument,
               "data file '{}' is truncated or corrupt (zlib error {}); {}", path, closeCode, hint);
  return out;
}

IdxArray parseIdx(ConstBytes bytes, const std::string& path, const std::string& hint) {
  TETRAD_CHECK(bytes.size() >= 4, InvalidArgument,
               "data file '{}' is truncated: {} bytes, too short for an IDX header; {}", path,
               bytes.size(), hint);
  TETRAD_CHECK(bytes[0] == std::byte{0} && bytes[1] == std::byte{0}, InvalidArgument,
               "data file '{}' is not an IDX file (bad magic number); {}", path, hint);
  auto type = static_cast<uint8_t>(bytes[2]);
  TETRAD_CHECK(type == kUnsignedByte, InvalidArgument,
               "data file '{}' holds IDX type 0x{:02x}, expected unsigned bytes (0x08); {}", path,
               type, hint);
  size_t rank = static_cast<size_t>(bytes[3]);
  TETRAD_CHECK(rank >= 1 && rank <= 4, InvalidArgument,
               "data file '{}' has {} IDX dimensions, expected 1 to 4; {}", path, rank, hint);
  size_t headerBytes = 4 + 4 * rank;
  TETRAD_CHECK(bytes.size() >= headerBytes, InvalidArgument,
               "data file '{}' is truncated inside its IDX header ({} bytes); {}", path,
               bytes.size(), hint);
  IdxArray array;
  uint64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    uint32_t dim = bigEndian32(bytes.subspan(4 + 4 * i, 4));
    array.dims.push_back(dim);
    count *= dim;
    TETRAD_CHECK(count <= kMaxIdxBytes, InvalidArgument,
                 "data file '{}' declares an oversized IDX array; {}", path, hint);
  }
  uint64_t payload = bytes.size() - headerBytes;
  TETRAD_CHECK(payload >= count, InvalidArgument,
               "data file '{}' is truncated: header declares {} bytes of data, found {}; {}", path,
               count, payload, hint);
  TETRAD_CHECK(payload == count, InvalidArgument,
               "data file '{}' is corrupt: {} unexpected bytes after the declared {} bytes; {}",
               path, payload - count, count, hint);
  const auto* begin = reinterpret_cast<const uint8_t*>(bytes.data() + headerBytes);
  array.data.assign(begin, begin + count);
  return array;
}

IdxArray readIdxFile(const std::string& path, size_t expectedRank, const std::string& hint) {
  ByteBuffer bytes = readMaybeGzip(path, hint);
  IdxArray array = parseIdx(bytes, path, hint);
  TETRAD_CHECK(array.dims.size() == expectedRank, InvalidArgument,
               "data file '{}' has {} dimensions, expected {} (wrong file?); {}", path,
               array.dims.size(), expectedRank, hint);
  return array;
}

void writeIdxFile(const std::string& path, const std::vector<uint32_t>& dims,
                  const std::vector<uint8_t>& data, bool gzip) {
  ByteBuffer bytes = {std::byte{0}, std::byte{0}, std::byte{kUnsignedByte},
                      static_cast<std::byte>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(std::byte((d >> shift) & 0xff));
  }
  for (uint8_t v : data) bytes.push_back(std::byte{v});
  if (gzip) {
    gzFile file = gzopen(path.c_str(), "wb");
    TETRAD_CHECK(file != nullptr, InvalidArgument, "cannot create '{}'", path);
    int written = gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
    int closed = gzclose(file);
    TETRAD_CHECK(written == static_cast<int>(bytes.size()) && closed == Z_OK, InvalidArgument,
                 "cannot write '{}'", path);
  } else {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    TETRAD_CHECK(file != nullptr, InvalidArgument, "cannot create '{}'", path);
    size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
    int closed = std::fclose(file);
    TETRAD_CHECK(written == bytes.size() && closed == 0, InvalidArgument, "cannot write '{}'",
                 path);
  }
}

}  // namespace tetrad::train
