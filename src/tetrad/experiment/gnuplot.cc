#include "tetrad/experiment/gnuplot.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tetrad/core/error.h"
#include "tetrad/experiment/child_process.h"

namespace tetrad::experiment {
namespace {
constexpr int kLogTailLines = 15;

std::string logPath(const std::string& workDir) {
  return (std::filesystem::path(workDir) / "gnuplot.log").string();
}
}  // namespace

std::string pngTerminal(const std::string& workDir) {
  const std::string log = (std::filesystem::path(workDir) / "gnuplot-terminals.log").string();
  std::filesystem::remove(log);
  const int status = runToCompletion({"gnuplot", "-e", "set terminal"}, log, workDir);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  in.close();
  std::filesystem::remove(log);
  TETRAD_CHECK(status == 0, Error,
               "gnuplot failed (exit status {}); install gnuplot-nox (sh scripts/setup.sh): {}",
               status, text.str());
  auto has = [&](const std::string& name) {
    return text.str().find(" " + name + " ") != std::string::npos;
  };
  if (has("pngcairo")) return "pngcairo";
  if (has("png")) return "png";
  TETRAD_FAIL(Error, "this gnuplot has neither the pngcairo nor the png terminal");
}

void runGnuplot(const std::string& scriptName, const std::string& workDir) {
  const std::string log = logPath(workDir);
  std::filesystem::remove(log);
  const int status = runToCompletion({"gnuplot", scriptName}, log, workDir);
  TETRAD_CHECK(status == 0, Error, "gnuplot {} failed (exit status {}); last lines of {}:\n{}",
               scriptName, status, log, tailOfFile(log, kLogTailLines));
}

}  // namespace tetrad::experiment
