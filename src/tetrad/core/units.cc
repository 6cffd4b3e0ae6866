#include "tetrad/core/units.h"

#include <charconv>
#include <cmath>
#include <utility>

#include "tetrad/core/error.h"
#include "tetrad/core/parameter_count.h"

namespace tetrad {
namespace {

struct Suffix {
  std::string_view name;
  double factor;
};

// Splits "12.5ms" into 12.5 and "ms"; throws when there is no leading number.
std::pair<double, std::string_view> splitNumber(std::string_view text, std::string_view what) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  TETRAD_CHECK(ec == std::errc() && std::isfinite(value), InvalidArgument,
               "invalid {} '{}': expected a number with a unit", what, text);
  return {value, text.substr(end - text.data())};
}

double withSuffix(std::string_view text, std::string_view what,
                  std::initializer_list<Suffix> suffixes, bool allowBare) {
  auto [value, unit] = splitNumber(text, what);
  if (unit.empty() && allowBare) return value;
  for (const Suffix& s : suffixes) {
    if (unit == s.name) return value * s.factor;
  }
  std::string known;
  for (const Suffix& s : suffixes) known += (known.empty() ? "" : ", ") + std::string(s.name);
  TETRAD_FAIL(InvalidArgument, "invalid {} '{}': unknown unit '{}' (use {})", what, text, unit,
              known);
}

}  // namespace

uint64_t parseBytes(std::string_view text) {
  double v = withSuffix(text, "size",
                        {{"B", 1},
                         {"KB", 1e3},
                         {"MB", 1e6},
                         {"GB", 1e9},
                         {"K", 1024.0},
                         {"M", 1024.0 * 1024},
                         {"G", 1024.0 * 1024 * 1024},
                         {"KiB", 1024.0},
                         {"MiB", 1024.0 * 1024},
                         {"GiB", 1024.0 * 1024 * 1024}},
                        true);
  TETRAD_CHECK(v >= 0, InvalidArgument, "invalid size '{}': must not be negative", text);
  TETRAD_CHECK(v < 1e15, InvalidArgument, "invalid size '{}': too large", text);
  return static_cast<uint64_t>(std::llround(v));
}

double parseBandwidth(std::string_view text) {
  double v = withSuffix(text, "bandwidth",
                        {{"bps", 1 / 8.0},
                         {"Kbps", 1e3 / 8},
                         {"Mbps", 1e6 / 8},
                         {"Gbps", 1e9 / 8},
                         {"Tbps", 1e12 / 8},
                         {"Bps", 1},
                         {"KBps", 1e3},
                         {"MBps", 1e6},
                         {"GBps", 1e9}},
                        false);
  TETRAD_CHECK(v > 0, InvalidArgument, "invalid bandwidth '{}': must be positive", text);
  return v;
}

double parseDuration(std::string_view text) {
  double v =
      withSuffix(text, "duration", {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}}, false);
  TETRAD_CHECK(v >= 0, InvalidArgument, "invalid duration '{}': must not be negative", text);
  return v;
}

double parseNumber(std::string_view text, std::string_view what) {
  auto [value, rest] = splitNumber(text, what);
  TETRAD_CHECK(rest.empty(), InvalidArgument, "invalid {} '{}': expected a number", what, text);
  return value;
}

int64_t parseInteger(std::string_view text, std::string_view what) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  TETRAD_CHECK(ec == std::errc() && end == text.data() + text.size(), InvalidArgument,
               "invalid {} '{}': expected an integer", what, text);
  return value;
}

std::string formatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (bytes >= 1024 && i < 4) {
    bytes /= 1024;
    ++i;
  }
  return i == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[i]);
}

std::string formatSeconds(double s) {
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

std::string formatBandwidth(double bps) {
  if (bps >= 1e9) return fmt::format("{:.2f} GB/s", bps / 1e9);
  if (bps >= 1e6) return fmt::format("{:.2f} MB/s", bps / 1e6);
  return fmt::format("{:.2f} KB/s", bps / 1e3);
}

uint64_t parseParameterCount(std::string_view text) {
  std::string digits(text);
  double scale = 1;
  if (!digits.empty()) {
    const char last = digits.back();
    if (last == 'K' || last == 'k') scale = 1e3;
    if (last == 'M' || last == 'm') scale = 1e6;
    if (last == 'G' || last == 'g') scale = 1e9;
    if (scale != 1) digits.pop_back();
  }
  double value = 0;
  try {
    value = parseNumber(digits, "--params") * scale;
  } catch (const InvalidArgument&) {
    value = -1;
  }
  TETRAD_CHECK(value >= 1 && value <= 1e12, InvalidArgument,
               "--params '{}': expected a count between 1 and 1T parameters (e.g. 25M)", text);
  return static_cast<uint64_t>(std::llround(value));
}

}  // namespace tetrad
