#include "tetrad/experiment/report_tuning.h"

#include <fmt/format.h>

#include <cmath>

#include "tetrad/core/units.h"

namespace tetrad::experiment {
namespace {

constexpr const char* kNone = "-";

struct Cost {
  size_t runs = 0;
  double iterations = 0;
  double trainTime = 0;  // engine clock
  double wallTime = 0;

  void add(const RunRecord& r) {
    ++runs;
    iterations += double(r.iterations);
    if (!std::isnan(r.trainTime)) trainTime += r.trainTime;
    if (!std::isnan(r.wallTime)) wallTime += r.wallTime;
  }
  std::string text() const {
    return fmt::format("{} runs, {:.0f} iterations, {} of training time, {} of wall time", runs,
                       iterations, formatSeconds(trainTime), formatSeconds(wallTime));
  }
};

std::string orDash(double value, const std::string& text) {
  return std::isnan(value) ? kNone : text;
}

std::string methodTable(const TuningResult& t, Cost& cost) {
  const std::string metric(tuneMetricName(t.metric));
  std::string text =
      fmt::format("### {}: {} after {:.0f}% of a run's iterations ({} iterations)\n\n", t.method,
                  metric, 100 * t.budget, t.budgetIterations);
  text += fmt::format("| lr | status | {} | training time | wall time | pick |\n", metric);
  text += "|--:|---|--:|--:|--:|---|\n";
  for (const TuningPoint& p : t.points) {
    cost.add(p.record);
    text += fmt::format("| {} | {} | {} | {} | {} | {} |\n", p.lr, p.status,
                        orDash(p.metric, fmt::format("{:.4f}", p.metric)),
                        orDash(p.record.trainTime, formatSeconds(p.record.trainTime)),
                        orDash(p.record.wallTime, formatSeconds(p.record.wallTime)),
                        p.lr == t.pick ? "**pick**" : "");
  }
  if (t.pick.empty()) {
    text += t.complete ? "\nNo rate of the grid gave a result: nothing picked.\n"
                       : "\nTuning has not finished: nothing picked yet.\n";
  }
  return text + "\n";
}

}  // namespace

std::string tuningSection(const std::vector<TuningResult>& tuning,
                          const std::vector<RunRecord>& runs) {
  if (tuning.empty()) return "";
  std::string text =
      "\n## Learning-rate tuning\n\n"
      "Each tuned method trained every rate of its grid (tune_lr) for a share of a run's "
      "iterations (tune_budget) on the sweep's first cluster with its first seed; the rate "
      "with the best metric (ties: the larger rate; a diverged run never wins) is the lr of "
      "all its runs above. Runs: the sweep folder's tuning/.\n\n";
  Cost tuningCost;
  for (const TuningResult& t : tuning) text += methodTable(t, tuningCost);
  Cost compared;
  for (const RunRecord& r : runs) {
    if (r.status == "ok" || r.status == "diverged") compared.add(r);
  }
  text += fmt::format("Tuning cost: {}. The compared runs: {}", tuningCost.text(), compared.text());
  if (compared.wallTime > 0) {
    text += fmt::format(" (tuning added {:.0f}% of their wall time)",
                        100 * tuningCost.wallTime / compared.wallTime);
  }
  return text + ".\n";
}

}  // namespace tetrad::experiment
