// Parsing of policy spec strings (see spec.h).
#include "tetrad/core/spec.h"

#include <charconv>
#include <cmath>

#include "tetrad/core/error.h"

namespace tetrad {
namespace {

std::optional<double> toDouble(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> toInteger(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

void SpecParams::fail(std::string_view rule) const {
  TETRAD_FAIL(InvalidArgument, "invalid {} '{}': {}", what, spec, rule);
}

void SpecParams::expectParamCount(size_t min, size_t max) const {
  if (params.size() >= min && params.size() <= max) return;
  if (min == max) {
    fail(fmt::format("'{}' takes {} parameter(s), got {}", name, min, params.size()));
  }
  fail(fmt::format("'{}' takes {} to {} parameters, got {}", name, min, max, params.size()));
}

double SpecParams::ratio(size_t index, std::string_view what) const {
  if (index >= params.size()) fail(fmt::format("missing {}", what));
  std::optional<double> value = toDouble(params[index]);
  if (!value || !std::isfinite(*value) || *value <= 0 || *value > 1) {
    fail(fmt::format("{} must be in (0, 1], got '{}'", what, params[index]));
  }
  return *value;
}

int64_t SpecParams::integer(size_t index, std::string_view what, int64_t min, int64_t max) const {
  if (index >= params.size()) fail(fmt::format("missing {}", what));
  std::optional<int64_t> value = toInteger(params[index]);
  if (!value || *value < min || *value > max) {
    fail(fmt::format("{} must be an integer in [{}, {}], got '{}'", what, min, max, params[index]));
  }
  return *value;
}

double SpecParams::positiveNumber(size_t index, std::string_view what) const {
  if (index >= params.size()) fail(fmt::format("missing {}", what));
  std::optional<double> value = toDouble(params[index]);
  if (!value || !std::isfinite(*value) || *value <= 0) {
    fail(fmt::format("{} must be a number > 0, got '{}'", what, params[index]));
  }
  return *value;
}

std::optional<double> SpecParams::keyNumber(std::string_view key, size_t skip) const {
  for (size_t i = skip; i < params.size(); ++i) {
    std::string_view param = params[i];
    if (param.size() <= key.size() || param.substr(0, key.size()) != key ||
        param[key.size()] != '=') {
      continue;
    }
    std::string_view text = param.substr(key.size() + 1);
    std::optional<double> value = toDouble(text);
    if (!value || !std::isfinite(*value) || *value <= 0) {
      fail(fmt::format("{} must be a number > 0, got '{}'", key, text));
    }
    return value;
  }
  return std::nullopt;
}

bool SpecParams::hasFlag(std::string_view flag, size_t skip) const {
  for (size_t i = skip; i < params.size(); ++i) {
    if (params[i] == flag) return true;
  }
  return false;
}

void SpecParams::expectKnown(size_t skip, std::initializer_list<std::string_view> flags,
                             std::initializer_list<std::string_view> keys) const {
  for (size_t i = skip; i < params.size(); ++i) {
    std::string_view param = params[i];
    bool known = false;
    for (std::string_view flag : flags) known = known || param == flag;
    for (std::string_view key : keys) {
      known = known || (param.size() > key.size() && param.substr(0, key.size()) == key &&
                        param[key.size()] == '=');
    }
    if (!known) {
      std::string valid;
      for (std::string_view flag : flags) valid += fmt::format(" '{}'", flag);
      for (std::string_view key : keys) valid += fmt::format(" '{}=N'", key);
      fail(fmt::format("unknown parameter '{}' for '{}' (valid:{})", param, name,
                       valid.empty() ? " none" : valid));
    }
  }
}

SpecParams parseSpec(std::string_view spec, std::string_view what) {
  SpecParams result;
  result.what = std::string(what);
  result.spec = std::string(spec);
  size_t start = 0;
  bool first = true;
  while (true) {
    size_t colon = spec.find(':', start);
    std::string_view part = spec.substr(
        start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
    if (part.empty()) result.fail(first ? "empty name" : "empty parameter");
    if (first) {
      result.name = std::string(part);
      first = false;
    } else {
      result.params.emplace_back(part);
    }
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return result;
}

}  // namespace tetrad
