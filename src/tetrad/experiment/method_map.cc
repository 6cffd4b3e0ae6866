#include "tetrad/experiment/method_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/bootstrap.h"

namespace tetrad::experiment {
namespace {

template <typename Parse>
MapAxis parseAxis(const std::string& text, const std::string& what, Parse parse) {
  const size_t first = text.find(':');
  const size_t second = first == std::string::npos ? first : text.find(':', first + 1);
  TETRAD_CHECK(second != std::string::npos && text.find(':', second + 1) == std::string::npos,
               InvalidArgument, "invalid {} '{}': use MIN:MAX:STEPS", what, text);
  double low = 0, high = 0;
  int64_t steps = 0;
  try {
    low = parse(text.substr(0, first));
    high = parse(text.substr(first + 1, second - first - 1));
    steps = parseInteger(text.substr(second + 1), what);
  } catch (const Error& e) {
    throw InvalidArgument(fmt::format("invalid {} '{}': {}", what, text, e.what()));
  }
  TETRAD_CHECK(low > 0 && high > 0, InvalidArgument, "invalid {} '{}': values must be positive",
               what, text);
  TETRAD_CHECK(low <= high, InvalidArgument, "invalid {} '{}': min is larger than max", what, text);
  TETRAD_CHECK(steps >= 1 && steps <= 64, InvalidArgument,
               "invalid {} '{}': STEPS must be in [1, 64]", what, text);
  TETRAD_CHECK(steps > 1 || low == high, InvalidArgument,
               "invalid {} '{}': one step needs min = max", what, text);
  MapAxis axis;
  for (int64_t i = 0; i < steps; ++i) {
    const double t = steps == 1 ? 0 : double(i) / double(steps - 1);
    axis.values.push_back(std::exp(std::log(low) + t * (std::log(high) - std::log(low))));
  }
  return axis;
}

}  // namespace

MapAxis parseBandwidthAxis(const std::string& text, const std::string& what) {
  return parseAxis(text, what, [](const std::string& v) { return parseBandwidth(v); });
}

MapAxis parseLatencyAxis(const std::string& text, const std::string& what) {
  return parseAxis(text, what, [](const std::string& v) { return parseDuration(v); });
}

std::string mapClusterSpec(double bytesPerSecond, double latencySeconds, int workers) {
  return fmt::format("sim:{}{:.0f}Mbps,{:.0f}ns", workers > 0 ? fmt::format("{}x", workers) : "",
                     bytesPerSecond * 8 / 1e6, latencySeconds * 1e9);
}

std::string winnerOf(const MapCell& cell) {
  std::string winner;
  double best = std::numeric_limits<double>::infinity();
  for (const MapEntry& e : cell.entries) {
    if (std::isfinite(e.timeToTarget) && e.timeToTarget < best) {
      best = e.timeToTarget;
      winner = e.method;
    }
  }
  return winner;
}

bool tiedWin(const MapCell& cell) {
  const MapEntry* first = nullptr;
  const MapEntry* second = nullptr;
  for (const MapEntry& e : cell.entries) {
    if (!std::isfinite(e.timeToTarget)) continue;
    if (first == nullptr || e.timeToTarget < first->timeToTarget) {
      second = first;
      first = &e;
    } else if (second == nullptr || e.timeToTarget < second->timeToTarget) {
      second = &e;
    }
  }
  if (second == nullptr) return false;
  const Interval ci = ratioOfMeansInterval(second->seedTimes, first->seedTimes);
  return !ci.missing() && ci.low <= 1;
}

std::string advisedOf(const MapCell& cell) {
  std::string advised;
  double best = std::numeric_limits<double>::infinity();
  for (const MapEntry& e : cell.entries) {
    const double t = e.predictedTimeToTarget();
    if (std::isfinite(t) && t < best) {
      best = t;
      advised = e.method;
    }
  }
  return advised;
}

namespace {

const MapEntry* entryOf(const MapCell& cell, const std::string& method) {
  for (const MapEntry& e : cell.entries) {
    if (e.method == method) return &e;
  }
  return nullptr;
}

// "time per iteration predicted 1.2x measured" for the factor of `e` whose
// prediction is furthest off (in log terms).
std::string worstFactor(const MapEntry& e) {
  // A method that never reached the target has no measured factors: the
  // theory's iterations were the prediction that failed.
  if (std::isinf(e.predictedIterations)) {
    return std::isfinite(e.timeToTarget)
               ? fmt::format(
                     "predicted not to reach the target within its run's iterations, "
                     "reached it at {:.3g}",
                     e.iterationsToTarget)
               : "predicted not to reach the target within its run's iterations";
  }
  if (!std::isfinite(e.timeToTarget)) {
    return fmt::format("it never reached the target (predicted {:.3g} iterations)",
                       e.predictedIterations);
  }
  const double time = e.predictedTimePerIteration / e.timePerIteration;
  const double iterations = e.predictedIterations / e.iterationsToTarget;
  const double timeOff = std::isfinite(time) ? std::fabs(std::log(time)) : 0;
  const double iterationsOff = std::isfinite(iterations) ? std::fabs(std::log(iterations)) : 0;
  if (timeOff >= iterationsOff) {
    return fmt::format("time per iteration predicted {:.2f}x the {}", time, e.source);
  }
  return fmt::format("iterations predicted {:.2f}x the measured", iterations);
}

}  // namespace

bool adviceAgrees(const MapCell& cell, double tolerance) {
  const std::string winner = winnerOf(cell);
  const std::string advised = advisedOf(cell);
  if (winner.empty() || advised.empty()) return false;
  const MapEntry& a = *entryOf(cell, advised);
  return advised == winner ||
         (std::isfinite(a.timeToTarget) &&
          a.timeToTarget <= (1 + tolerance) * entryOf(cell, winner)->timeToTarget);
}

MapAgreement countAgreement(const std::vector<MapCell>& cells, double tolerance) {
  MapAgreement agreement;
  for (const MapCell& cell : cells) {
    const std::string winner = winnerOf(cell);
    const std::string advised = advisedOf(cell);
    if (winner.empty() || advised.empty()) continue;
    ++agreement.cells;
    const MapEntry& w = *entryOf(cell, winner);
    const MapEntry& a = *entryOf(cell, advised);
    const auto near =
        std::count_if(cell.entries.begin(), cell.entries.end(), [&](const MapEntry& e) {
          return std::isfinite(e.timeToTarget) &&
                 e.timeToTarget <= (1 + tolerance) * w.timeToTarget;
        });
    if (near >= 2) ++agreement.crowded;
    if (advised == winner) ++agreement.exact;
    if (adviceAgrees(cell, tolerance)) {
      ++agreement.agreed;
      continue;
    }
    // The advised method crossed the target after its previous evaluation:
    // before the winner's time, the runs cannot tell the two apart.
    const bool tie = std::isfinite(a.timeToTarget) && std::isfinite(a.evaluationSeconds) &&
                     a.timeToTarget - a.evaluationSeconds < w.timeToTarget;
    if (tie) ++agreement.tied;
    agreement.disagreements.push_back(fmt::format(
        "{}: advised {} ({}), fastest {} ({}){}; off: {} for {}, {} for {}",
        mapClusterSpec(cell.bandwidth, cell.latency, cell.workers), advised,
        std::isfinite(a.timeToTarget) ? formatSeconds(a.timeToTarget) : "never", winner,
        formatSeconds(w.timeToTarget),
        tie ? fmt::format(", a tie within one evaluation step ({} − {} < {})",
                          formatSeconds(a.timeToTarget), formatSeconds(a.evaluationSeconds),
                          formatSeconds(w.timeToTarget))
            : "",
        worstFactor(a), advised, worstFactor(w), winner));
  }
  return agreement;
}

std::vector<MapPanel> panelsOf(const std::vector<MapCell>& cells) {
  std::vector<MapPanel> panels;
  for (const MapCell& cell : cells) {
    const MapPanel panel{cell.workers, cell.computeScale};
    if (std::none_of(panels.begin(), panels.end(),
                     [&](const MapPanel& p) { return p.holds(cell); }))
      panels.push_back(panel);
  }
  return panels;
}

std::string panelTitle(const MapPanel& panel, const std::vector<MapPanel>& panels) {
  bool counts = false, scales = false;
  for (const MapPanel& p : panels) {
    counts = counts || p.workers != panels.front().workers;
    scales = scales || (!p.everyScale && p.computeScale != panels.front().computeScale);
  }
  std::string title = counts ? fmt::format("{} workers", panel.workers) : "";
  if (scales)
    title += fmt::format("{}compute ×{:g}", title.empty() ? "" : ", ", panel.computeScale);
  return title;
}

std::vector<double> parseComputeScales(const std::string& text, const std::string& what) {
  std::vector<double> scales;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    double value = NAN;
    try {
      value = parseNumber(item, what);
    } catch (const InvalidArgument&) {
    }
    TETRAD_CHECK(value > 0 && std::isfinite(value), InvalidArgument,
                 "{} '{}': '{}' is not a factor > 0 (give factors like 0.1,1,10)", what, text,
                 item);
    TETRAD_CHECK(std::find(scales.begin(), scales.end(), value) == scales.end(), InvalidArgument,
                 "{} '{}': {} is given twice", what, text, item);
    scales.push_back(value);
    start = comma + 1;
  }
  return scales;
}

}  // namespace tetrad::experiment
