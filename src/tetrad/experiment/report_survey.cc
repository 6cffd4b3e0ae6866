#include "tetrad/experiment/report_survey.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/bootstrap.h"
#include "tetrad/experiment/crossing.h"
#include "tetrad/experiment/lr_tuning.h"
#include "tetrad/experiment/report_cells.h"
#include "tetrad/experiment/report_table.h"
#include "tetrad/experiment/report_tuning.h"
#include "tetrad/experiment/run_record.h"

namespace fs = std::filesystem;

namespace tetrad::experiment {
namespace {

using namespace cells;  // NOLINT: the tables are made of cells

std::vector<double> timesToTarget(const MethodRow& row) {
  return row.seedTimesToTarget;  // all finite when reachedByAll(row)
}

// "1.23× [1.10, 1.35]": the speed-up of means and its 95% interval over
// seeds ("1.23×" alone with one seed on either side).
std::string speedUpCell(const MethodRow* base, const MethodRow& row) {
  if (base == nullptr || !reachedByAll(*base) || !reachedByAll(row)) return kNone;
  const double up = speedUp(base->timeToTarget, row.timeToTarget);
  if (std::isnan(up)) return kNone;
  if (base == &row) return "1.00×";
  const Interval ci = ratioOfMeansInterval(timesToTarget(*base), timesToTarget(row));
  if (ci.missing()) return fmt::format("{:.2f}×", up);
  return fmt::format("{:.2f}× [{:.2f}, {:.2f}]", up, ci.low, ci.high);
}

// A method's times to a target over its seeds (every one finite).
struct Candidate {
  std::string method;
  std::vector<double> times;
  double mean() const { return SeedValues{times}.mean(); }
};

// The fastest candidate to `what`, and whether the runner-up is slower at
// the 95% level (the interval of runner-up time / fastest time above 1).
std::string verdictOn(std::vector<Candidate> reached, const std::string& what) {
  if (reached.empty()) return fmt::format("No method reached {} on every seed.\n", what);
  std::sort(reached.begin(), reached.end(),
            [](const Candidate& a, const Candidate& b) { return a.mean() < b.mean(); });
  const Candidate& first = reached[0];
  if (reached.size() == 1) {
    return fmt::format("Fastest to {}: {} ({}), the only method to reach it.\n", what, first.method,
                       formatSeconds(first.mean()));
  }
  const Candidate& second = reached[1];
  const double margin = second.mean() / first.mean();
  const Interval ci = ratioOfMeansInterval(second.times, first.times);
  std::string judged;
  if (ci.missing()) {
    judged = "one seed: no interval";
  } else if (ci.low > 1) {
    judged = fmt::format("95% interval [{:.2f}, {:.2f}]: a win", ci.low, ci.high);
  } else {
    judged = fmt::format("95% interval [{:.2f}, {:.2f}] holds 1: a tie", ci.low, ci.high);
  }
  return fmt::format("Fastest to {}: {} ({}), {:.2f}× ahead of {} ({}).\n", what, first.method,
                     formatSeconds(first.mean()), margin, second.method, judged);
}

std::string verdictOf(const ClusterGroup& group) {
  std::vector<Candidate> reached;
  for (const MethodRow& row : group.rows) {
    if (!row.layerWise && reachedByAll(row)) reached.push_back({row.method, timesToTarget(row)});
  }
  return verdictOn(reached, "the target");
}

// A crossing time over seeds: "1.23 s ± 45 ms", "(k/n seeds)" when not all
// crossed, "never" when none did.
std::string crossingCell(const SeedValues& times) {
  std::vector<double> crossed;
  for (double t : times.values) {
    if (std::isfinite(t)) crossed.push_back(t);
  }
  if (crossed.empty()) return "never";
  double sum = 0;
  for (double t : crossed) sum += t;
  std::string text = formatSeconds(sum / double(crossed.size()));
  const double sd = sampleStd(crossed);
  if (!std::isnan(sd)) text += " ± " + formatSeconds(sd);
  if (crossed.size() < times.values.size())
    text += fmt::format(" ({}/{} seeds)", crossed.size(), times.values.size());
  return text;
}

// mean(base) / mean(method) with its interval over seeds.
std::string ratioCell(const SeedValues& base, const SeedValues& method, bool isBase) {
  if (!base.all() || !method.all()) return kNone;
  if (isBase) return "1.00×";
  const double up = base.mean() / method.mean();
  const Interval ci = ratioOfMeansInterval(base.values, method.values);
  if (ci.missing()) return fmt::format("{:.2f}×", up);
  return fmt::format("{:.2f}× [{:.2f}, {:.2f}]", up, ci.low, ci.high);
}

// Convergence to the end: each method's crossing times, interpolated
// between evaluations (crossing.h), at the sweep's target and at a
// near-final one, BSP's final mean accuracy minus one point.
std::string convergenceTable(const ClusterGroup& group) {
  if (group.baseline < 0) return "";
  const MethodRow& base = group.rows[size_t(group.baseline)];
  if (!std::isfinite(base.accuracyMean) || !std::isfinite(base.targetAccuracy)) return "";
  const double nearFinal = base.accuracyMean - 0.01;
  const SeedValues baseTarget = crossingTimes(base.curveFolders, base.targetAccuracy);
  const SeedValues baseNear = crossingTimes(base.curveFolders, nearFinal);
  std::string text = fmt::format(
      "Convergence to the end (crossings interpolated between evaluations; near-final target "
      "{:.2f}% = BSP's final mean − 1 point):\n\n"
      "| method | final accuracy | to {:.2f}% | speed-up [95% CI] | to {:.2f}% | speed-up [95% CI] "
      "|\n|---|--:|--:|--:|--:|--:|\n",
      100 * nearFinal, 100 * base.targetAccuracy, 100 * nearFinal);
  std::vector<Candidate> nearReached;
  for (const MethodRow& row : group.rows) {
    if (row.layerWise) continue;
    const SeedValues target = crossingTimes(row.curveFolders, base.targetAccuracy);
    const SeedValues near = crossingTimes(row.curveFolders, nearFinal);
    text += fmt::format("| {} | {} | {} | {} | {} | {} |\n", labelOf(row), accuracy(row),
                        crossingCell(target), ratioCell(baseTarget, target, &row == &base),
                        crossingCell(near), ratioCell(baseNear, near, &row == &base));
    if (near.all()) nearReached.push_back({row.method, near.values});
  }
  return text + "\n" + verdictOn(nearReached, fmt::format("{:.2f}%", 100 * nearFinal));
}

std::string clusterTable(const ClusterGroup& group) {
  const MethodRow* base = group.baseline >= 0 ? &group.rows[size_t(group.baseline)] : nullptr;
  const MethodRow* fp16 =
      group.fp16Baseline >= 0 ? &group.rows[size_t(group.fp16Baseline)] : nullptr;
  std::string text =
      fmt::format("### {} (`{}`, {} workers)\n\n", group.cluster, group.spec, group.workers);
  text +=
      "| method | lr | seeds | final accuracy | time to target | speed-up vs fp32 [95% CI] | "
      "vs fp16 [95% CI] | time/iter | iterations to target | bytes/worker/iter | comm share |\n"
      "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const MethodRow& row : group.rows) {
    const bool againstFp16 = !row.role.uncompressed;
    text += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", labelOf(row),
                        learningRate(row), row.seeds, accuracy(row), toTarget(row),
                        speedUpCell(base, row), againstFp16 ? speedUpCell(fp16, row) : kNone,
                        seconds(row.timePerIter), itersToTarget(row),
                        orDash(row.bytesPerWorkerIter, formatBytes(row.bytesPerWorkerIter)),
                        share(row, row.commPerIter));
  }
  text += "\n" + verdictOf(group);
  const std::string convergence = convergenceTable(group);
  return convergence.empty() ? text : text + "\n" + convergence;
}

// One CSV line's fields (double quotes around a field that holds a comma).
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string latencyText(double seconds) {
  return seconds >= 1e-3 ? fmt::format("{:g} ms", seconds * 1e3)
                         : fmt::format("{:g} µs", seconds * 1e6);
}

}  // namespace

std::string surveyTables(const std::vector<ClusterGroup>& groups) {
  std::string text;
  for (const ClusterGroup& group : groups) text += (text.empty() ? "" : "\n") + clusterTable(group);
  return text;
}

std::string surveyMapTable(const std::string& mapCsvPath) {
  std::ifstream in(mapCsvPath);
  if (!in) return "";
  std::string line;
  std::getline(in, line);
  TETRAD_CHECK(line.starts_with("bandwidth_bps,latency_s,workers,cluster,method,"), InvalidArgument,
               "{}: not a method map's map.csv (header '{}')", mapCsvPath, line);
  std::set<double> bandwidths;
  std::set<std::pair<double, double>> rows;        // (compute scale, latency)
  using Key = std::tuple<double, double, double>;  // (compute scale, latency, bandwidth)
  std::map<Key, std::string> winners;
  std::map<Key, double> ratios;  // R, where known
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::vector<std::string> f = csvFields(line);
    TETRAD_CHECK(f.size() >= 10 && f.size() <= 12, InvalidArgument,
                 "{}:{}: {} fields, 10 to 12 (with r and compute_scale) expected", mapCsvPath,
                 number, f.size());
    double bandwidth = 0, latency = 0, ratio = NAN, scale = 1;
    try {
      bandwidth = std::stod(f[0]);
      latency = std::stod(f[1]);
      if (f.size() >= 11 && !f[10].empty()) ratio = std::stod(f[10]);
      if (f.size() == 12) scale = std::stod(f[11]);
    } catch (const std::exception&) {
      TETRAD_FAIL(InvalidArgument,
                  "{}:{}: bandwidth '{}', latency '{}', R or the compute scale is not a number",
                  mapCsvPath, number, f[0], f[1]);
    }
    bandwidths.insert(bandwidth);
    rows.insert({scale, latency});
    const Key key{scale, latency, bandwidth};
    std::string& cell = winners[key];
    if (f[9] == "1") cell += (cell.empty() ? "" : ", ") + f[4];
    if (std::isfinite(ratio)) ratios[key] = ratio;
  }
  const bool severalScales = !rows.empty() && rows.begin()->first != rows.rbegin()->first;
  std::string text = "| latency \\ bandwidth |", rule = "|---|";
  for (double b : bandwidths) {
    text += fmt::format(" {:g} Gb/s |", b / 1e9);
    rule += "---|";
  }
  text += "\n" + rule + "\n";
  for (const auto& [scale, l] : rows) {
    text +=
        "| " + latencyText(l) + (severalScales ? fmt::format(", compute ×{:g}", scale) : "") + " |";
    for (double b : bandwidths) {
      const std::string& w = winners[{scale, l, b}];
      const auto r = ratios.find({scale, l, b});
      text += " " + (w.empty() ? std::string(kNone) : w) +
              (r == ratios.end() ? ""
               : r->second >= 10 ? fmt::format(" (R {:.0f})", r->second)
                                 : fmt::format(" (R {:.2g})", r->second)) +
              " |";
    }
    text += "\n";
  }
  return text;
}

std::string surveyReport(const std::string& dir) {
  TETRAD_CHECK(fs::is_directory(dir), InvalidArgument, "'{}' is not a folder of runs", dir);
  const std::vector<RunRecord> records = readRunFolders(dir);
  const bool anyFinished = std::any_of(records.begin(), records.end(),
                                       [](const RunRecord& r) { return r.status == "ok"; });
  TETRAD_CHECK(anyFinished, InvalidArgument, "'{}' holds no finished run ({} run folders)", dir,
               records.size());
  std::string text = surveyTables(groupRuns(records));
  const std::string tuning = tuningSection(readTuningIndex(dir), records);
  if (!tuning.empty()) text += "\n" + tuning;
  const std::string map = surveyMapTable((fs::path(dir) / "map.csv").string());
  if (!map.empty()) text += "\n### Map: fastest method to the target per cell\n\n" + map;
  return text;
}

}  // namespace tetrad::experiment
