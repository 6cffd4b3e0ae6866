// NPY files (NumPy's .npy format), read strictly: the arrays of `--data npy`.
//
// An NPY file is the magic "\x93NUMPY", a major and minor version (1.0, 2.0
// or 3.0), the header length (u16 little-endian in 1.0, u32 in 2.0/3.0), a
// header that is a Python dict literal
//   {'descr': '<f4', 'fortran_order': False, 'shape': (60000, 28, 28), }
// padded with spaces and ended by '\n', then the raw array data in C order.
// parseNpy() accepts exactly the three keys, the dtypes uint8 ('|u1'),
// int64 ('<i8') and float32 ('<f4'), C order only (fortran_order True is
// refused), any shape whose product fits, and data of exactly
// product(shape) × itemsize bytes. Everything else — a wrong magic, an
// unknown version, a truncated header or body, trailing bytes, a big-endian or
// object dtype, a malformed literal — throws InvalidArgument with one line
// naming the file and the problem. It never reads out of bounds (bytes are
// read through ByteReader; tests/npy fuzzes it).
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tetrad/core/bytes.h"

namespace tetrad::train {

enum class NpyType { kUint8, kInt64, kFloat32 };

struct NpyArray {
  NpyType type = NpyType::kUint8;
  std::vector<uint64_t> shape;  // () for a scalar
  ByteBuffer data;              // product(shape) × itemSize() bytes, little-endian, C order

  size_t itemSize() const { return type == NpyType::kUint8 ? 1 : type == NpyType::kInt64 ? 8 : 4; }
  uint64_t count() const;  // product(shape)
};

// "uint8", "int64", "float32".
std::string toString(NpyType type);

// Parses the bytes of an NPY file; `path` only names the source in errors.
NpyArray parseNpy(ConstBytes bytes, const std::string& path);

// Reads and parses a file (throws InvalidArgument naming it when missing).
NpyArray readNpyFile(const std::string& path);

// Writes an NPY 1.0 file (tests and tools).
void writeNpyFile(const std::string& path, const NpyArray& array);

}  // namespace tetrad::train
