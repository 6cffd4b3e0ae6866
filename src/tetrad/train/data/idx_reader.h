// IDX files (the MNIST / Fashion-MNIST format), optionally gzip-compressed.
//
// An IDX file is a big-endian header — two zero bytes, a type code (0x08 =
// unsigned byte, the only type tetrad reads), the number of dimensions, then
// one u32 per dimension — followed by the row-major data. readIdxFile()
// decompresses through zlib (a plain, uncompressed file is read as is) and
// checks every byte: a missing, truncated, oversized or corrupt file throws
// InvalidArgument with one line naming the file and what to do about it.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tetrad/core/bytes.h"

namespace tetrad::train {

struct IdxArray {
  std::vector<uint32_t> dims;  // e.g. {60000, 28, 28}
  std::vector<uint8_t> data;   // product(dims) bytes, row-major
};

// Reads a whole file through zlib (gzip or plain). Throws InvalidArgument
// naming `path` when it is missing or its compressed stream is truncated or
// corrupt; `hint` is appended to the message (what the user should do).
ByteBuffer readMaybeGzip(const std::string& path, const std::string& hint);

// Parses IDX bytes; `path` and `hint` only name the source in errors.
IdxArray parseIdx(ConstBytes bytes, const std::string& path, const std::string& hint);

// readMaybeGzip + parseIdx; `expectedRank` (1 for labels, 3 for images) is
// checked.
IdxArray readIdxFile(const std::string& path, size_t expectedRank, const std::string& hint);

// Writes an IDX file of unsigned bytes, gzip-compressed when `gzip` (tests
// and tools).
void writeIdxFile(const std::string& path, const std::vector<uint32_t>& dims,
                  const std::vector<uint8_t>& data, bool gzip);

}  // namespace tetrad::train
