// Checked views of NumPy arrays as tetrad spans.
//
// Every float buffer that crosses into tetrad must already be float32 and
// C-contiguous: these helpers never convert (a converted copy would silently
// swallow writes into an output), they refuse with a Python TypeError /
// ValueError naming the argument, its dtype and its layout. Views borrow the
// array's memory: the caller keeps the array alive while the span is used.
// Call with the GIL held.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <span>
#include <string>

#include "tetrad/core/float16.h"

namespace tetrad::python {

inline void checkFloat32(const pybind11::array& array, const char* what) {
  if (!array.dtype().is(pybind11::dtype::of<float>())) {
    throw pybind11::type_error(std::string(what) + ": expected a float32 array, got dtype " +
                               std::string(pybind11::str(array.dtype())));
  }
  if (!(array.flags() & pybind11::array::c_style)) {
    throw pybind11::value_error(std::string(what) + ": expected a C-contiguous array");
  }
}

inline std::span<const float> constFloats(const pybind11::array& array, const char* what) {
  checkFloat32(array, what);
  return {static_cast<const float*>(array.data()), static_cast<size_t>(array.size())};
}

inline std::span<float> mutableFloats(pybind11::array& array, const char* what) {
  checkFloat32(array, what);
  if (!array.writeable()) {
    throw pybind11::value_error(std::string(what) + ": the array is read-only");
  }
  return {static_cast<float*>(array.mutable_data()), static_cast<size_t>(array.size())};
}

// Bytes of any buffer (bytes, bytearray, memoryview, uint8 array).
inline std::span<const std::byte> constBytes(const pybind11::buffer& buffer,
                                             pybind11::buffer_info& info, const char* what) {
  info = buffer.request();
  if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != info.itemsize)) {
    throw pybind11::value_error(std::string(what) + ": expected a flat contiguous buffer");
  }
  return {static_cast<const std::byte*>(info.ptr), static_cast<size_t>(info.size * info.itemsize)};
}

// A NumPy float32 array that owns `values` (moved, no copy).
inline pybind11::array_t<float> ownedArray(std::vector<float>&& values) {
  auto* owned = new std::vector<float>(std::move(values));
  pybind11::capsule free(owned, [](void* p) { delete static_cast<std::vector<float>*>(p); });
  return pybind11::array_t<float>({static_cast<pybind11::ssize_t>(owned->size())}, owned->data(),
                                  free);
}

// 16-bit buffers (bind_precision.cc): "fp16" or "bf16" (ValueError naming
// `what` otherwise), and a flat, contiguous buffer of 2-byte items as bytes
// (TypeError / ValueError otherwise).
HalfFormat parseHalfFormat(const std::string& name, const char* what);
std::span<std::byte> halfBytes(const pybind11::buffer& buffer, pybind11::buffer_info& info,
                               bool writable, const char* what);

}  // namespace tetrad::python
