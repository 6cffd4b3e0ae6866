#include "tetrad/model/advice_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "tetrad/core/units.h"
#include "tetrad/model/method_traits.h"

namespace tetrad::model {
namespace {

constexpr std::string_view kAccuracyPrefix = "costs accuracy: ";

struct Row {
  const TargetPrediction* target = nullptr;
  bool covered = true;
};

std::string caveatOf(const Prediction& p, bool covered) {
  std::string flag = p.flags.empty() ? "" : p.flags.front();
  if (flag.starts_with(kAccuracyPrefix)) flag = flag.substr(kAccuracyPrefix.size());
  if (covered) return flag.empty() ? "-" : flag;
  return flag.empty() ? "no iteration theory" : "no iteration theory; " + flag;
}

}  // namespace

AdviceTable formatAdviceTable(const TargetRanking& ranking) {
  AdviceTable table;
  // Each part is sorted, and one sync × compressor has one multiplier: the
  // first all-reduce row of a sync × compressor is its fastest algorithm.
  std::set<std::string> seen;  // "sync compress" on the all-reduce
  std::vector<Row> rows;
  for (const auto* part : {&ranking.covered, &ranking.uncovered}) {
    for (const TargetPrediction& t : *part) {
      const Method& m = t.perIteration.method;
      if (methodTraits(m).collective && !seen.insert(m.sync + " " + m.compress).second) {
        ++table.hidden;
        continue;
      }
      rows.push_back({&t, part == &ranking.covered});
    }
  }
  // The reference: BSP on its fastest all-reduce without compression, else
  // the fastest covered row.
  const TargetPrediction* reference = nullptr;
  for (const TargetPrediction& t : ranking.covered) {
    if (reference == nullptr && methodTraits(t.perIteration.method).plainBsp()) reference = &t;
  }
  if (reference == nullptr && !ranking.covered.empty()) reference = &ranking.covered.front();
  if (reference != nullptr) table.reference = reference->perIteration.method.label();
  size_t width = std::string_view("method").size();
  for (const Row& row : rows) {
    width = std::max(width, row.target->perIteration.method.label().size());
  }
  table.lines.push_back(fmt::format("{:>4}  {:<{}}  {:>9}  {:>13}  {:>12}  {}", "rank", "method",
                                    width, "to target", "per iteration", "× iterations", "caveat"));
  int rank = 0;
  for (const Row& row : rows) {
    const TargetPrediction& t = *row.target;
    const bool relative = row.covered && reference != nullptr && reference->seconds > 0;
    const std::string toTarget =
        relative ? fmt::format("{:.2f}×", t.seconds / reference->seconds) : "-";
    const std::string multiplier =
        row.covered ? fmt::format("{:.2f}", t.iterations.multiplier) : "?";
    table.lines.push_back(fmt::format("{:>4}  {:<{}}  {:>9}  {:>13}  {:>12}  {}", ++rank,
                                      t.perIteration.method.label(), width, toTarget,
                                      formatSeconds(t.perIteration.seconds), multiplier,
                                      caveatOf(t.perIteration, row.covered)));
  }
  return table;
}

}  // namespace tetrad::model
