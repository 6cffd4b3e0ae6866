// Parsing of compressor spec strings (see spec.h).
#include "tetrad/compress/spec.h"

#include <charconv>
#include <cmath>
#include <limits>

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

std::optional<std::string> CompressorParams::keyText(std::string_view key, size_t skip) const {
  std::optional<std::string> found;
  for (size_t i = skip; i < params.size(); ++i) {
    const std::string_view param = params[i];
    if (param.size() <= key.size() || param.substr(0, key.size()) != key ||
        param[key.size()] != '=') {
      continue;
    }
    if (found) fail(fmt::format("'{}' given twice", key));
    found = std::string(param.substr(key.size() + 1));
  }
  return found;
}

std::optional<double> CompressorParams::keyNumberIn(std::string_view key, double min, bool openMin,
                                                    double max, bool openMax, size_t skip) const {
  const std::optional<std::string> text = keyText(key, skip);
  if (!text) return std::nullopt;
  double value = 0;
  const char* end = text->data() + text->size();
  const auto [stop, ec] = std::from_chars(text->data(), end, value);
  const bool inside = ec == std::errc() && stop == end && std::isfinite(value) &&
                      (openMin ? value > min : value >= min) &&
                      (openMax ? value < max : value <= max);
  if (!inside) {
    const std::string upper = std::isinf(max) ? "inf" : fmt::format("{:g}", max);
    fail(fmt::format("{} must be a number in {}{:g}, {}{}, got '{}'", key, openMin ? '(' : '[', min,
                     upper, openMax || std::isinf(max) ? ')' : ']', *text));
  }
  return value;
}

std::optional<int64_t> CompressorParams::keyInteger(std::string_view key, std::string_view what,
                                                    int64_t min, int64_t max, size_t skip) const {
  const std::optional<std::string> text = keyText(key, skip);
  if (!text) return std::nullopt;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [stop, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || stop != end || value < min || value > max) {
    fail(fmt::format("{} must be an integer in [{}, {}], got '{}'", what, min, max, *text));
  }
  return value;
}

std::optional<size_t> CompressorParams::keyChoice(std::string_view key,
                                                  std::initializer_list<std::string_view> choices,
                                                  size_t skip) const {
  const std::optional<std::string> text = keyText(key, skip);
  if (!text) return std::nullopt;
  size_t index = 0;
  std::string valid;
  for (std::string_view choice : choices) {
    if (*text == choice) return index;
    valid += fmt::format("{}'{}'", index == 0 ? "" : " or ", choice);
    ++index;
  }
  fail(fmt::format("{} must be {}, got '{}'", key, valid, *text));
}

}  // namespace tetrad
