// Parsing of compressor spec strings (see spec.h).
#include "tetrad/compress/spec.h"

#include "tetrad/core/error.h"

namespace tetrad {

CompressorParams parseCompressorSpec(std::string_view spec) {
  CompressorParams result;
  result.what = "compressor";
  result.spec = std::string(spec);
  std::string_view body = spec;
  size_t comma = body.find(',');
  if (comma != std::string_view::npos) {
    std::string_view suffix = body.substr(comma + 1);
    if (suffix != "ef") result.fail("the only suffix is ',ef' (error feedback)");
    result.errorFeedback = true;
    body = body.substr(0, comma);
  }
  if (body.empty() || body.front() == ':') result.fail("empty compressor name");
  SpecParams parsed = parseSpec(body, "compressor");
  result.name = std::move(parsed.name);
  result.params = std::move(parsed.params);
  return result;
}

}  // namespace tetrad
