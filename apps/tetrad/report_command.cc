// `tetrad report DIR`: comparison tables (markdown) and plots (gnuplot, PNG
// and SVG) from the run folders under DIR, e.g. the output of `tetrad run`
// (src/tetrad/experiment/report.h, docs/experiments.md).
#include <cstdio>
#include <memory>

#include "command.h"
#include "tetrad/experiment/report.h"

namespace tetrad::app {
namespace {

void addReportCommand(CommandGroups& groups) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = groups.root->add_subcommand(
      "report", "Tables and plots (report.md, plots/) from the finished runs in a folder");
  cmd->add_option("dir", *dir, "Folder of run folders, e.g. runs/quick")->required();
  cmd->callback([dir] {
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
