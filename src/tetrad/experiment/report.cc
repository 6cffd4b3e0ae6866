#include "tetrad/experiment/report.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/experiment/gnuplot.h"
#include "tetrad/experiment/lr_tuning.h"
#include "tetrad/experiment/report_plots.h"
#include "tetrad/experiment/report_table.h"
#include "tetrad/experiment/report_tuning.h"
#include "tetrad/experiment/run_groups.h"
#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {
namespace {
namespace fs = std::filesystem;

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  TETRAD_CHECK(out.good(), Error, "cannot write {}", path.string());
}

std::string plotLinks(const std::vector<std::string>& images) {
  std::string text = "\n## Plots\n\n";
  for (const std::string& image : images) {
    if (image.ends_with(".png")) {
      const std::string base = image.substr(0, image.size() - 4);
      text += fmt::format("![{0}](plots/{1}) ([SVG](plots/{0}.svg))\n\n", base, image);
    }
  }
  return text;
}

std::string unfinished(const std::vector<RunRecord>& records) {
  std::string text;
  for (const RunRecord& r : records) {
    if (r.status != "ok") text += fmt::format("- `{}`: {}\n", r.name, r.status);
  }
  return text.empty() ? "" : "\n## Runs without results\n\n" + text;
}

// The method map of `tetrad advise --results DIR --map` (method_map.h), when
// it has been drawn into this folder.
std::string mapSection(const std::string& dir) {
  if (!fs::exists(fs::path(dir) / "map_winner.png")) return "";
  return "## Which method wins where\n\n"
         "From `tetrad advise --results DIR --map`: synchronous methods retimed on each "
         "network, asynchronous ones from the cost model (map.csv has each cell's times).\n\n"
         "![map_winner](map_winner.png) ([SVG](map_winner.svg))\n\n"
         "![map_time](map_time.png) ([SVG](map_time.svg))\n\n";
}

// Runs resized by an elastic resume (`tetrad elastic`, or --resume on
// another worker count): their resizes and what the supervisor lost.
std::string elasticSection(const std::vector<RunRecord>& records) {
  std::string rows;
  for (const RunRecord& r : records) {
    const std::vector<ResizeMark>& marks = r.resizes;
    const nlohmann::json extra =
        nlohmann::json::parse(r.extraJson.empty() ? "{}" : r.extraJson, nullptr, false);
    const bool supervised = extra.is_object() && extra.contains("elastic");
    if (marks.empty() && !supervised) continue;
    std::string resizes;
    for (const ResizeMark& m : marks) {
      resizes += fmt::format("{}{} -> {} at iteration {}", resizes.empty() ? "" : "; ", m.from,
                             m.to, m.iteration);
    }
    std::string lost = "-";
    if (supervised) {
      const nlohmann::json& e = extra["elastic"];
      lost = fmt::format("{} restarts, {} iterations, {:.1f} s", e.value("restarts", 0),
                         e.value("iterations_lost", int64_t(0)), e.value("seconds_lost", 0.0));
    }
    rows += fmt::format("| `{}` | {} | {} | {} |\n", r.name, r.workers,
                        resizes.empty() ? "-" : resizes, lost);
  }
  if (rows.empty()) return "";
  return "\n## Elastic runs\n\nRuns resumed on another worker count (docs/reliability.md, "
         "\"Elastic training\"); the accuracy-against-time plots mark each resize.\n\n"
         "| run | final workers | resizes | lost (tetrad elastic) |\n|---|---|---|---|\n" +
         rows;
}

}  // namespace

ReportFiles writeReport(const std::string& dir) {
  TETRAD_CHECK(fs::is_directory(dir), InvalidArgument, "'{}' is not a folder of runs", dir);
  const std::vector<RunRecord> records = readRunFolders(dir);
  ReportFiles files;
  files.runs = records.size();
  for (const RunRecord& r : records) files.finished += r.status == "ok" ? 1 : 0;
  TETRAD_CHECK(files.finished > 0, InvalidArgument,
               "'{}' holds no finished run ({} run folders, none with summary.json)", dir,
               records.size());
  const std::vector<ClusterGroup> groups = groupRuns(records);
  files.tables = markdownTables(groups) + tuningSection(readTuningIndex(dir), records);

  const fs::path plotsDir = fs::path(dir) / "plots";
  std::error_code ec;
  fs::create_directories(plotsDir, ec);
  TETRAD_CHECK(!ec, Error, "cannot create {} ({})", plotsDir.string(), ec.message());
  files.plotsDir = plotsDir.string();
  const PlotSet plots = buildPlots(groups, pngTerminal(plotsDir.string()));
  for (const auto& [name, contents] : plots.data) writeText(plotsDir / name, contents);
  writeText(plotsDir / "report.gp", plots.script);
  for (const std::string& image : plots.images) fs::remove(plotsDir / image, ec);
  if (!plots.images.empty()) runGnuplot("report.gp", plotsDir.string());
  for (const std::string& image : plots.images) {
    const fs::path path = plotsDir / image;
    TETRAD_CHECK(fs::exists(path) && fs::file_size(path) > 0, Error,
                 "gnuplot did not write {} (see {}/gnuplot.log)", path.string(), plotsDir.string());
    files.images.push_back(path.string());
  }

  std::string markdown = fmt::format(
      "# tetrad report: {}\n\n{} run folders, {} finished. Numbers come from each run's "
      "summary.json and metrics.jsonl; times are training times on the engine clock "
      "(simulated seconds on SimGrid clusters), per-iteration values are means over ranks "
      "and seeds (columns: docs/experiments.md).\n\n",
      dir, files.runs, files.finished);
  files.winners = winnersLine(groups);
  markdown += files.tables + plotLinks(plots.images) + mapSection(dir) + elasticSection(records) +
              unfinished(records);
  if (!files.winners.empty()) markdown += "\n" + files.winners;
  files.markdownPath = (fs::path(dir) / "report.md").string();
  writeText(files.markdownPath, markdown);
  return files;
}

}  // namespace tetrad::experiment
