// Options, tag ranges and error context shared by every collective.
//
// A collective is a free function over a Transport that every rank of the
// world calls with the same arguments (lengths, algorithm, op, root, tag).
// Each call uses the tags [tag, tag + kCollectiveTagSpan); two collectives may
// run concurrently on one transport (e.g. from a communication task) only if
// their tag ranges do not overlap.
//
// Errors a peer causes (a length that differs across ranks, a timeout) reach
// the caller as the transport's typed exception, re-thrown with the
// collective's name, this rank and the length prepended, so the first line
// says which collective failed and where.
//
// Wire precision (all-reduce): the element type of every message. kFloat32
// sends the float32 values themselves. kFloat16 (IEEE binary16) and
// kBFloat16 send 2 bytes per element: the sender rounds the block it sends
// to nearest even (core/float16.h), the receiver widens it and accumulates
// in float32, so forwarded partial sums are rounded at each hop (as in
// Horovod's / NCCL's fp16 all-reduce) and the β term halves.
//
// Thread-safety: plain values and stateless helpers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tetrad/core/error.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

// Tags a single collective call may use, starting at its options' tag. The
// last three, [tag + 13, tag + 16), belong to the call check
// (call_check.h): algorithms use tags below tag + 13.
constexpr Tag kCollectiveTagSpan = 16;

enum class WirePrecision { kFloat32, kFloat16, kBFloat16 };

// Bytes per element on the wire: 4, 2, 2.
size_t wireElementBytes(WirePrecision wire);
// "fp32" (or "float32"), "fp16" (or "half", "float16"), "bf16" (or
// "bfloat16"). Throws InvalidArgument listing the valid names.
WirePrecision parseWirePrecision(std::string_view name);
std::string toString(WirePrecision wire);  // "fp32", "fp16", "bf16"

// Options of collectives that have a single algorithm (barrier, the byte
// all-gather of compressors).
struct CollectiveOptions {
  Tag tag = 200;
};

// Throws InvalidArgument unless [tag, tag + kCollectiveTagSpan) is a range of
// user tags.
void checkCollectiveTag(const Transport& transport, Tag tag, const char* collective);

namespace detail {

// Runs `body`; a tetrad error escaping it is re-thrown with `context`.
template <typename Body, typename Context>
void runWithContext(Body&& body, Context&& context) {
  try {
    body();
  } catch (const Error&) {
    rethrowWithPrefix(context() + ": ");
  }
}

}  // namespace detail
}  // namespace tetrad
