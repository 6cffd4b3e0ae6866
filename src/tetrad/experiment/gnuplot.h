// Running gnuplot (the gnuplot-nox package) as a child process.
//
// Plots are drawn by writing a script and data files and running `gnuplot
// SCRIPT` in the plots folder; its output goes to gnuplot.log there. Errors
// (gnuplot missing, a script error) throw Error with the log's tail.
//
// Thread-safety: plain functions; each call starts its own child.
#pragma once

#include <string>

namespace tetrad::experiment {

// "pngcairo" when this gnuplot has the cairo PNG terminal, else "png" (libgd).
// Throws Error when gnuplot cannot run or has neither.
std::string pngTerminal(const std::string& workDir);

// Runs `gnuplot scriptName` in `workDir`.
void runGnuplot(const std::string& scriptName, const std::string& workDir);

}  // namespace tetrad::experiment
