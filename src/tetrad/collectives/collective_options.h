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
// Thread-safety: plain values and stateless helpers.
#pragma once

#include <string>

#include "tetrad/core/error.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

// Tags a single collective call may use, starting at its options' tag.
constexpr Tag kCollectiveTagSpan = 16;

// Options of collectives that have a single algorithm (barrier, the byte
// all-gather of compressors).
struct CollectiveOptions {
  Tag tag = 200;
};

// Throws InvalidArgument unless [tag, tag + kCollectiveTagSpan) is a range of
// user tags.
void checkCollectiveTag(const Transport& transport, Tag tag, const char* collective);

namespace detail {

// Re-throws the tetrad error `error` with `context` prepended, keeping its
// type. Used by the public entry points of the collectives.
[[noreturn]] void rethrowWithContext(const Error& error, const std::string& context);

// Runs `body`; a tetrad error escaping it is re-thrown with `context`.
template <typename Body, typename Context>
void runWithContext(Body&& body, Context&& context) {
  try {
    body();
  } catch (const Error& error) {
    rethrowWithContext(error, context());
  }
}

}  // namespace detail
}  // namespace tetrad
