// Typed errors for tetrad.
//
// Every failure that a user or a peer can cause is reported by throwing one of
// these types with a message that names the problem and its context (rank,
// tensor, sizes). The `tetrad` command catches them at the top, prints the
// one-line message and exits non-zero; it never lets them crash the process.
// Threads and SimGrid actors catch and forward them (see launch/launcher.h).
//
// Thread-safety: the types are plain values; the macros may be used anywhere.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace tetrad {

// Base class of every tetrad error.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Bad user input: a flag, a config file, a cluster spec, a data file.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A wait ran past its timeout (a silent or stalled peer).
class TimeoutError : public Error {
 public:
  using Error::Error;
};

// A peer died, or the transport itself failed.
class TransportError : public Error {
 public:
  using Error::Error;
};

// Bytes from a peer or a file that do not follow the format: a truncated,
// oversized or hostile packet, a message of the wrong size.
class ProtocolError : public Error {
 public:
  using Error::Error;
};

// A valid request that this build or engine does not (yet) support.
class Unsupported : public Error {
 public:
  using Error::Error;
};

// Training produced a NaN or an Inf (train/loop/nonfinite_guard.h). Thrown on
// every rank alike, after the ranks agreed on it and ended the run together,
// so the command exits non-zero without aborting the other ranks.
class NonFiniteError : public Error {
 public:
  using Error::Error;
};

// A stop signal (SIGINT, SIGTERM) ended a training run after every rank
// wrote a checkpoint (train/checkpoint/stop_signal.h); thrown on every rank alike. The
// command exits with status 3.
class Interrupted : public Error {
 public:
  using Error::Error;
};

// Rethrows the exception being handled (call it only inside a catch block) as
// the same tetrad error type with `prefix` put in front of its message,
// unless the message already starts with it ("rank 3: ", "allreduce ...: ").
// Any other std::exception becomes Error; anything else Error("unknown
// exception").
[[noreturn]] void rethrowWithPrefix(std::string_view prefix);

// TETRAD_CHECK(condition, ErrorType, "format {}", args...) throws ErrorType
// with the formatted message when `condition` is false.
#define TETRAD_CHECK(condition, ErrorType, ...)  \
  do {                                           \
    if (!(condition)) [[unlikely]] {             \
      throw ErrorType(fmt::format(__VA_ARGS__)); \
    }                                            \
  } while (false)

// TETRAD_FAIL(ErrorType, "format {}", args...) always throws.
#define TETRAD_FAIL(ErrorType, ...) throw ErrorType(fmt::format(__VA_ARGS__))

}  // namespace tetrad
