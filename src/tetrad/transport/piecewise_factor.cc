#include "tetrad/transport/piecewise_factor.h"

#include <fmt/format.h>

#include <cmath>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad {

PiecewiseFactor::PiecewiseFactor(std::vector<FactorChunk> chunks, std::string_view what)
    : chunks_(std::move(chunks)) {
  for (size_t i = 0; i < chunks_.size(); ++i) {
    const FactorChunk& c = chunks_[i];
    TETRAD_CHECK(std::isfinite(c.factor) && c.factor > 0, InvalidArgument,
                 "{}: factor {} of the interval from {} bytes must be a positive number", what,
                 c.factor, c.fromBytes);
    TETRAD_CHECK(i == 0 || c.fromBytes > chunks_[i - 1].fromBytes, InvalidArgument,
                 "{}: intervals must start at increasing sizes, but {} bytes follows {} bytes",
                 what, c.fromBytes, chunks_[i - 1].fromBytes);
  }
}

PiecewiseFactor PiecewiseFactor::parse(std::string_view text, std::string_view what) {
  std::vector<FactorChunk> chunks;
  if (!isPiecewiseValue(text)) {
    chunks.push_back({0, parseNumber(text, what)});
    return PiecewiseFactor(std::move(chunks), what);
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view chunk = text.substr(start, end - start);
    start = end + 1;
    if (chunk.empty() && end == text.size()) break;  // a trailing ';'
    size_t colon = chunk.find(':');
    TETRAD_CHECK(colon != std::string_view::npos && colon > 0, InvalidArgument,
                 "{}: chunk '{}' of '{}' is not BYTES:FACTOR", what, chunk, text);
    int64_t from = parseInteger(chunk.substr(0, colon), what);
    TETRAD_CHECK(from >= 0, InvalidArgument, "{}: chunk '{}' starts at a negative size", what,
                 chunk);
    chunks.push_back({static_cast<uint64_t>(from), parseNumber(chunk.substr(colon + 1), what)});
  }
  TETRAD_CHECK(!chunks.empty(), InvalidArgument, "{}: '{}' has no BYTES:FACTOR chunk", what, text);
  return PiecewiseFactor(std::move(chunks), what);
}

double PiecewiseFactor::at(double bytes) const {
  if (chunks_.empty()) return 1;
  // SimGrid's rule: the last chunk whose threshold is below the size.
  double factor = chunks_.front().factor;
  for (const FactorChunk& c : chunks_) {
    if (bytes <= static_cast<double>(c.fromBytes)) break;
    factor = c.factor;
  }
  return factor;
}

std::string PiecewiseFactor::toString() const {
  std::string text;
  for (const FactorChunk& c : chunks_)
    text += fmt::format("{}{}:{}", text.empty() ? "" : ";", c.fromBytes, c.factor);
  return text;
}

bool isPiecewiseValue(std::string_view value) {
  return value.find(':') != std::string_view::npos || value.find(';') != std::string_view::npos;
}

}  // namespace tetrad
