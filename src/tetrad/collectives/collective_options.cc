#include "tetrad/collectives/collective_options.h"

#include <fmt/format.h>

namespace tetrad {

void checkCollectiveTag(const Transport& transport, Tag tag, const char* collective) {
  TETRAD_CHECK(tag <= kMaxUserTag - kCollectiveTagSpan, InvalidArgument,
               "rank {}: {} with tag {}: tags [{}, {}) must stay below the reserved tag {}",
               transport.rank(), collective, tag, tag,
               static_cast<uint64_t>(tag) + kCollectiveTagSpan, kMaxUserTag);
}

namespace detail {

void rethrowWithContext(const Error& error, const std::string& context) {
  std::string message = fmt::format("{}: {}", context, error.what());
  if (dynamic_cast<const ProtocolError*>(&error)) throw ProtocolError(message);
  if (dynamic_cast<const TimeoutError*>(&error)) throw TimeoutError(message);
  if (dynamic_cast<const TransportError*>(&error)) throw TransportError(message);
  if (dynamic_cast<const InvalidArgument*>(&error)) throw InvalidArgument(message);
  if (dynamic_cast<const Unsupported*>(&error)) throw Unsupported(message);
  throw Error(message);
}

}  // namespace detail
}  // namespace tetrad
