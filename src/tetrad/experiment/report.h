// `tetrad report DIR`: tables and plots from finished run folders.
//
// Reads every run folder under DIR (run_record.h) and writes, into DIR:
//   report.md          a markdown table per cluster (report_table.h), the
//                      learning-rate tuning (report_tuning.h), links to the
//                      plots, and the runs that did not finish
//   plots/*.png *.svg  drawn by gnuplot (report_plots.h), with the script
//                      (plots/report.gp) and data (plots/*.tsv) beside them
//
// A DIR that does not exist or holds no finished run is an InvalidArgument.
//
// Thread-safety: call from one thread (it runs gnuplot as a child).
#pragma once

#include <string>
#include <vector>

namespace tetrad::experiment {

struct ReportFiles {
  std::string markdownPath;         // DIR/report.md
  std::string tables;               // the markdown tables, as in report.md
  std::string winners;              // winnersLine() (report_table.h), report.md's last line
  std::string plotsDir;             // DIR/plots
  std::vector<std::string> images;  // paths of the PNG and SVG files
  size_t runs = 0;                  // run folders read
  size_t finished = 0;              // of which ok
};

ReportFiles writeReport(const std::string& dir);

}  // namespace tetrad::experiment
