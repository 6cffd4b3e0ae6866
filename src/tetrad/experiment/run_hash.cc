#include "tetrad/experiment/run_hash.h"

#include <fmt/format.h>

namespace tetrad::experiment {
namespace {
constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

uint64_t fnv1aUpdate(uint64_t hash, std::string_view bytes) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= kFnvPrime;
  }
  return hash;
}
}  // namespace

uint64_t fnv1a64(std::string_view bytes) {
  return fnv1aUpdate(kFnvOffsetBasis, bytes);
}

std::string toHex64(uint64_t value) {
  return fmt::format("{:016x}", value);
}

std::string hashArguments(const std::vector<std::string>& arguments) {
  uint64_t hash = kFnvOffsetBasis;
  for (const std::string& argument : arguments) {
    hash = fnv1aUpdate(hash, argument);
    hash = fnv1aUpdate(hash, std::string_view("\0", 1));
  }
  return toHex64(hash);
}

}  // namespace tetrad::experiment
