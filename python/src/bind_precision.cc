// Python bindings of the 16-bit conversions that let the DDP comm hook take
// float16 and bfloat16 buckets (torch.autocast with bf16 parameters, or fp16
// parameters) at close to the cost of a float32 bucket.
//
// The hook keeps every compressor and residual in float32, so a half bucket
// is widened into a float32 copy, reduced, and narrowed back. Done with
// torch's copy_() those two conversions alone cost more than a tenth of a
// compressor's hook (1.66 M elements: 0.29 + 0.45 ms for fp16 against a
// 3-5 ms hook). Here they use core/float16.h's bulk conversions (F16C when
// the build targets it) and fold in the other passes the hook would make:
//
//   widen(src, fmt, out)        out = float32(src); returns "all finite",
//                               read from the 16-bit exponents (no sum pass).
//   narrow(src, fmt, out)       out = fmt(src), round to nearest even.
//   divide_half(buf, fmt, d)    buf = fmt(float32(buf) / d) in place;
//                               returns "all finite" (the identity hook's
//                               divide, as DDP's default hook does it).
//
// Half buffers are any flat, C-contiguous buffer of 2-byte items (a torch
// tensor's .view(torch.int16).numpy(): NumPy has no bfloat16). fmt is "fp16"
// or "bf16". Results are bit for bit torch's conversions (IEEE round to
// nearest even). All three release the GIL while they convert.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "array_view.h"
#include "bindings.h"
#include "tetrad/core/float16.h"

namespace py = pybind11;

namespace tetrad::python {
namespace {

using Format = HalfFormat;

}  // namespace

Format parseHalfFormat(const std::string& name, const char* what) {
  if (name == "fp16") return Format::kFp16;
  if (name == "bf16") return Format::kBf16;
  throw py::value_error(std::string(what) + ": format must be 'fp16' or 'bf16', got '" + name +
                        "'");
}

std::span<std::byte> halfBytes(const py::buffer& buffer, py::buffer_info& info, bool writable,
                               const char* what) {
  info = buffer.request(writable);
  if (info.itemsize != 2) {
    throw py::type_error(std::string(what) +
                         ": expected 2-byte items (a float16 or bfloat16 "
                         "tensor viewed as int16), got " +
                         std::to_string(info.itemsize) + "-byte items");
  }
  if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != 2)) {
    throw py::value_error(std::string(what) + ": expected a flat contiguous buffer");
  }
  return {static_cast<std::byte*>(info.ptr), static_cast<size_t>(info.size) * 2};
}

namespace {

bool allFinite(const std::byte* bytes, size_t count, Format format) {
  return halfValuesFinite(format, bytes, count);
}

void toFloats(const std::byte* in, std::span<float> out, Format format) {
  widenHalf(format, in, out);
}

void fromFloats(std::span<const float> in, std::byte* out, Format format) {
  if (format == Format::kFp16) {
    floatsToHalf(in, out);
  } else {
    floatsToBf16(in, out);
  }
}

// Chunks small enough to stay in L1 between the passes over them.
constexpr size_t kChunk = 4096;

bool widen(const py::buffer& source, const std::string& formatName, py::array& out) {
  const Format format = parseHalfFormat(formatName, "widen");
  py::buffer_info info;
  std::span<std::byte> in = halfBytes(source, info, false, "widen: src");
  std::span<float> wide = mutableFloats(out, "widen: out");
  if (wide.size() * 2 != in.size()) {
    throw py::value_error("widen: src has " + std::to_string(in.size() / 2) + " elements, out " +
                          std::to_string(wide.size()));
  }
  py::gil_scoped_release nogil;
  bool finite = true;
  for (size_t begin = 0; begin < wide.size(); begin += kChunk) {
    const size_t count = std::min(kChunk, wide.size() - begin);
    finite &= allFinite(in.data() + 2 * begin, count, format);
    toFloats(in.data() + 2 * begin, wide.subspan(begin, count), format);
  }
  return finite;
}

void narrow(const py::array& source, const std::string& formatName, const py::buffer& target,
            float divisor) {
  const Format format = parseHalfFormat(formatName, "narrow");
  std::span<const float> wide = constFloats(source, "narrow: src");
  py::buffer_info info;
  std::span<std::byte> out = halfBytes(target, info, true, "narrow: out");
  if (wide.size() * 2 != out.size()) {
    throw py::value_error("narrow: src has " + std::to_string(wide.size()) + " elements, out " +
                          std::to_string(out.size() / 2));
  }
  if (!(divisor > 0)) throw py::value_error("narrow: divisor must be > 0");
  py::gil_scoped_release nogil;
  if (divisor == 1.0f) {
    fromFloats(wide, out.data(), format);
    return;
  }
  // The average's division folded into the narrowing pass: fmt(src / d),
  // the same two roundings as dividing the float32 array first.
  float chunk[kChunk];
  for (size_t begin = 0; begin < wide.size(); begin += kChunk) {
    const size_t n = std::min(kChunk, wide.size() - begin);
    for (size_t i = 0; i < n; ++i) chunk[i] = wide[begin + i] / divisor;
    fromFloats(std::span<const float>(chunk, n), out.data() + 2 * begin, format);
  }
}

bool halfFinite(const py::buffer& source, const std::string& formatName) {
  const Format format = parseHalfFormat(formatName, "half_finite");
  py::buffer_info info;
  std::span<std::byte> in = halfBytes(source, info, false, "half_finite: src");
  py::gil_scoped_release nogil;
  return allFinite(in.data(), in.size() / 2, format);
}

void divideHalf(const py::buffer& target, const std::string& formatName, float divisor) {
  const Format format = parseHalfFormat(formatName, "divide_half");
  py::buffer_info info;
  std::span<std::byte> bytes = halfBytes(target, info, true, "divide_half: buf");
  const size_t count = bytes.size() / 2;
  py::gil_scoped_release nogil;
  float chunk[kChunk];
  for (size_t begin = 0; begin < count; begin += kChunk) {
    const size_t n = std::min(kChunk, count - begin);
    std::byte* at = bytes.data() + 2 * begin;
    std::span<float> values(chunk, n);
    toFloats(at, values, format);
    for (float& v : values) v /= divisor;  // as torch's div_: one rounding
    fromFloats(values, at, format);
  }
}

}  // namespace

void bindPrecision(py::module_& m) {
  m.def("widen", &widen, py::arg("src"), py::arg("format"), py::arg("out"),
        "out = float32(src) for a float16 ('fp16') or bfloat16 ('bf16') buffer of 2-byte "
        "items; True when every value is finite.");
  m.def("narrow", &narrow, py::arg("src"), py::arg("format"), py::arg("out"),
        py::arg("divisor") = 1.0f,
        "out = fp16 or bf16 of the float32 array src / divisor (the division in float32), "
        "rounded to nearest even.");
  m.def("half_finite", &halfFinite, py::arg("src"), py::arg("format"),
        "True when no value of the float16 ('fp16') or bfloat16 ('bf16') buffer is inf or NaN.");
  m.def("divide_half", &divideHalf, py::arg("buf"), py::arg("format"), py::arg("divisor"),
        "buf /= divisor in place on a float16 or bfloat16 buffer (computed in float32, rounded "
        "once).");
}

}  // namespace tetrad::python
