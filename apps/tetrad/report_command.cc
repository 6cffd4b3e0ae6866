// `tetrad report DIR`: comparison tables (markdown) and plots (gnuplot, PNG
// and SVG) from the run folders under DIR, e.g. the output of `tetrad run`
// (src/tetrad/experiment/report.h, docs/experiments.md); `--layout survey`
// prints docs/survey.md's tables instead (report_survey.h) and writes nothing.
#include <cstdio>
#include <memory>

#include "command.h"
#include "tetrad/experiment/report.h"
#include "tetrad/experiment/report_survey.h"

namespace tetrad::app {
namespace {

void addReportCommand(CommandGroups& groups) {
  auto dir = std::make_shared<std::string>();
  auto layout = std::make_shared<std::string>("full");
  CLI::App* cmd = groups.root->add_subcommand(
      "report", "Tables and plots (report.md, plots/) from the finished runs in a folder");
  cmd->add_option("dir", *dir, "Folder of run folders, e.g. runs/quick")->required();
  cmd->add_option("--layout", *layout,
                  "full: report.md and plots in DIR; survey: docs/survey.md's tables (seed "
                  "means, 95% bootstrap intervals, both baselines, tuning, map) on stdout")
      ->check(CLI::IsMember({"full", "survey"}));
  cmd->callback([dir, layout] {
    if (*layout == "survey") {
      std::fputs(experiment::surveyReport(*dir).c_str(), stdout);
      std::fflush(stdout);
      return;
    }
    const experiment::ReportFiles files = experiment::writeReport(*dir);
    std::fputs(files.tables.c_str(), stdout);
    std::printf("\nreport: %s (%zu of %zu runs finished)\n", files.markdownPath.c_str(),
                files.finished, files.runs);
    std::printf("plots:  %s/ (%zu files: PNG and SVG)\n", files.plotsDir.c_str(),
                files.images.size());
    if (!files.winners.empty()) std::printf("\n%s", files.winners.c_str());
    std::fflush(stdout);
  });
}

CommandRegistration registration(addReportCommand);

}  // namespace
}  // namespace tetrad::app
