#include "tetrad/core/error.h"

namespace tetrad {
namespace {

template <typename ErrorType>
[[noreturn]] void throwPrefixed(std::string_view prefix, std::string_view message) {
  if (message.starts_with(prefix)) throw ErrorType(std::string(message));
  throw ErrorType(std::string(prefix) + std::string(message));
}

}  // namespace

void rethrowWithPrefix(std::string_view prefix) {
  try {
    throw;
  } catch (const InvalidArgument& e) {
    throwPrefixed<InvalidArgument>(prefix, e.what());
  } catch (const TimeoutError& e) {
    throwPrefixed<TimeoutError>(prefix, e.what());
  } catch (const TransportError& e) {
    throwPrefixed<TransportError>(prefix, e.what());
  } catch (const ProtocolError& e) {
    throwPrefixed<ProtocolError>(prefix, e.what());
  } catch (const Unsupported& e) {
    throwPrefixed<Unsupported>(prefix, e.what());
  } catch (const std::exception& e) {
    throwPrefixed<Error>(prefix, e.what());
  } catch (...) {
    throwPrefixed<Error>(prefix, "unknown exception");
  }
}

}  // namespace tetrad
