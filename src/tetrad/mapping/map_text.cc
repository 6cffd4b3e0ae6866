// A method map's printed tables (map_text.h).
#include "tetrad/mapping/map_text.h"

#include <fmt/format.h>

#include "tetrad/core/units.h"
#include "tetrad/experiment/map_baselines.h"

namespace tetrad::mapping {

std::string winnerTable(const experiment::MapAxis& bandwidths, const experiment::MapAxis& latencies,
                        const std::vector<experiment::MapCell>& cells) {
  std::string text =
      fmt::format("# winner per cell (rows: latency; columns: bandwidth)\n{:<10}", "latency");
  for (double b : bandwidths.values)
    text += fmt::format(" {:>14}", fmt::format("{:.3g} Gb/s", b * 8 / 1e9));
  text += "\n";
  const std::vector<experiment::MapPanel> panels = experiment::panelsOf(cells);
  for (const experiment::MapPanel& panel : panels) {
    if (panels.size() > 1) text += "# " + experiment::panelTitle(panel, panels) + "\n";
    for (double latency : latencies.values) {
      text += fmt::format("{:<10}", formatSeconds(latency));
      for (double bandwidth : bandwidths.values) {
        std::string winner;
        for (const experiment::MapCell& cell : cells) {
          if (panel.holds(cell) && cell.latency == latency && cell.bandwidth == bandwidth)
            winner = experiment::winnerOf(cell);
        }
        text += fmt::format(" {:>14}", winner.empty() ? "-" : winner);
      }
      text += "\n";
    }
  }
  return text;
}

std::string agreementText(const std::vector<experiment::MapCell>& cells, bool anyBaseline,
                          const std::string& noiseRatioText) {
  if (!anyBaseline) {
    return "# advisor agreement: not counted (no finished BSP all-reduce run without compression "
           "that reached the target, whose iterations the theory multiplies)\n";
  }
  const experiment::MapAgreement agreement = experiment::countAgreement(cells);
  std::string text = fmt::format(
      "# advisor (cost model x BSP's iterations x theory multiplier, noise ratio {}) vs the "
      "map's fastest: agrees in {} of {} cells (the fastest, or within 10% of its time); {} more "
      "within one evaluation step of the fastest (ties the runs cannot resolve)\n",
      noiseRatioText, agreement.agreed, agreement.cells, agreement.tied);
  text += fmt::format(
      "# advisor exactly the fastest in {} of {} cells; {} cells hold 2 or more methods within "
      "10% of the fastest\n",
      agreement.exact, agreement.cells, agreement.crowded);
  for (const std::string& line : agreement.disagreements) text += "#   " + line + "\n";
  // The baselines (map_baselines.h): the same count for simpler advice.
  const experiment::MapAgreement unit =
      experiment::countAgreement(experiment::withUnitMultipliers(cells));
  const experiment::MapAgreement rules =
      experiment::countAgreement(experiment::withThreeRulePicks(cells));
  text += fmt::format(
      "# baseline, cost model alone (every multiplier 1): agrees in {} of {} cells, exactly in "
      "{}\n# baseline, three rules (>= 10 Gb/s: BSP; < 1 Gb/s: error feedback, else Local SGD, "
      "else BSP; between: fp16, else BSP): agrees in {} of {} cells, exactly in {}\n",
      unit.agreed, unit.cells, unit.exact, rules.agreed, rules.cells, rules.exact);
  return text;
}

}  // namespace tetrad::mapping
