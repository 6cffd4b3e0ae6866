#include "tetrad/collectives/collective_options.h"

#include <fmt/format.h>

namespace tetrad {

void checkCollectiveTag(const Transport& transport, Tag tag, const char* collective) {
  TETRAD_CHECK(tag <= kMaxUserTag - kCollectiveTagSpan, InvalidArgument,
               "rank {}: {} with tag {}: tags [{}, {}) must stay below the reserved tag {}",
               transport.rank(), collective, tag, tag,
               static_cast<uint64_t>(tag) + kCollectiveTagSpan, kMaxUserTag);
}

size_t wireElementBytes(WirePrecision wire) {
  return wire == WirePrecision::kFloat32 ? 4 : 2;
}

WirePrecision parseWirePrecision(std::string_view name) {
  if (name == "fp32" || name == "float32") return WirePrecision::kFloat32;
  if (name == "fp16" || name == "half" || name == "float16") return WirePrecision::kFloat16;
  if (name == "bf16" || name == "bfloat16") return WirePrecision::kBFloat16;
  TETRAD_FAIL(InvalidArgument, "unknown wire precision '{}' (valid: fp32, fp16, bf16)", name);
}

std::string toString(WirePrecision wire) {
  switch (wire) {
    case WirePrecision::kFloat32:
      return "fp32";
    case WirePrecision::kFloat16:
      return "fp16";
    case WirePrecision::kBFloat16:
      return "bf16";
  }
  return fmt::format("wire-precision-{}", static_cast<int>(wire));
}

}  // namespace tetrad
