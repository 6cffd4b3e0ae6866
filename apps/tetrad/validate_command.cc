// `tetrad validate`: predicts every published measurement of the validation
// set with the timing-only analytic engine and compares (docs/validation.md).
//
//   tetrad validate [DIR] [--json] [--jobs N] [--out DIR] [--iterations K] [--list]
//
// DIR: a folder of validation point files (default: the shipped
// configs/validation). Per point one row: published and predicted value of
// its metric, the relative error and, for speed-ups, whether the predicted
// speed-up is on the published side of 1; then the median and mean absolute
// relative error and the signs right. Writes OUT/validation.csv and a
// scatter plot of predicted against published (OUT/validation.png, gnuplot;
// OUT/validation.gp keeps the script). --json: one JSON object instead of
// the table. A malformed point throws InvalidArgument naming its file, line
// and key (exit 2) before anything runs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command.h"
#include "tetrad/core/error.h"
#include "tetrad/core/shipped_files.h"
#include "tetrad/experiment/gnuplot.h"
#include "tetrad/experiment/validation_run.h"

namespace tetrad::app {
namespace {

namespace fs = std::filesystem;
using experiment::ValidationResult;

struct ValidateFlags {
  std::string dir;
  std::string out = "runs/validate";
  int jobs = 1;
  int iterations = 10;
  bool json = false;
  bool list = false;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void writeCsv(const std::vector<ValidationResult>& results, const std::string& path) {
  std::ofstream out(path);
  out << "id,source,model,devices,metric,published,predicted,relative_error,sign_right,error\n";
  for (const ValidationResult& r : results) {
    const auto& p = *r.point;
    out << fmt::format("{},\"{}\",{},{},{},{},{},{},{},\"{}\"\n", p.id, p.source, p.model,
                       p.devices(), p.metric, p.published, r.error.empty() ? r.predicted : NAN,
                       r.error.empty() ? r.relativeError : NAN,
                       r.signRight < 0 ? "" : (r.signRight ? "yes" : "no"), r.error);
  }
}

void plotScatter(const std::vector<ValidationResult>& results, const std::string& outDir) {
  std::ofstream data(fs::path(outDir) / "validation.dat");
  for (const ValidationResult& r : results) {
    if (r.error.empty() && r.point->metric != "speedup" && r.point->metric != "efficiency") {
      data << r.point->published << ' ' << r.predicted << ' ' << r.point->id << '\n';
    }
  }
  data.close();
  std::ofstream script(fs::path(outDir) / "validation.gp");
  script << "set terminal " << experiment::pngTerminal(outDir) << " size 800,700\n"
         << "set output 'validation.png'\nset logscale xy\nset key top left\n"
         << "set xlabel 'published (samples/s or s)'\nset ylabel 'predicted'\n"
         << "set title 'tetrad validate: predicted against published'\n"
         << "plot 'validation.dat' using 1:2 with points pt 7 title 'points', "
            "x with lines title 'y = x', 1.25*x with lines dt 2 title '+25%', "
            "0.75*x with lines dt 2 title '-25%'\n";
  script.close();
  experiment::runGnuplot("validation.gp", outDir);
}

void runValidate(const ValidateFlags& f) {
  const std::string dir = f.dir.empty() ? shippedConfigPath("validation") : f.dir;
  const std::vector<experiment::ValidationPoint> points = experiment::loadValidationSet(dir);
  TETRAD_CHECK(f.iterations >= 2, InvalidArgument, "--iterations must be >= 2, got {}",
               f.iterations);
  if (f.list) {
    std::printf("# tetrad validate: %zu points in %s\n", points.size(), dir.c_str());
    for (const auto& p : points) {
      std::printf("%-28s %-14s %5d %-14s %12.4g  %s\n", p.id.c_str(), p.model.c_str(), p.devices(),
                  p.metric.c_str(), p.published, p.source.c_str());
    }
    return;
  }
  fs::create_directories(f.out);
  const std::vector<ValidationResult> results = experiment::predictValidationSet(
      points, {childProgram(), fs::absolute(f.out).string(), f.jobs, f.iterations});
  std::vector<double> errors, heldOut;
  int signs = 0, signsRight = 0, failed = 0;
  size_t fitted = 0;
  for (const ValidationResult& r : results) {
    if (r.point->fitted) ++fitted;
    if (!r.error.empty()) {
      ++failed;
      continue;
    }
    errors.push_back(std::fabs(r.relativeError));
    if (!r.point->fitted) heldOut.push_back(std::fabs(r.relativeError));
    if (r.signRight >= 0) {
      ++signs;
      signsRight += r.signRight;
    }
  }
  writeCsv(results, (fs::path(f.out) / "validation.csv").string());
  std::string plotNote;
  try {
    plotScatter(results, f.out);
  } catch (const Error& e) {
    plotNote = fmt::format(" (no plot: {})", e.what());
  }
  double mean = 0;
  for (double e : errors) mean += e / double(errors.size());
  if (f.json) {
    nlohmann::ordered_json j;
    j["points"] = results.size();
    j["failed"] = failed;
    j["median_abs_relative_error"] = median(errors);
    j["mean_abs_relative_error"] = errors.empty() ? NAN : mean;
    j["fitted_points"] = fitted;
    j["held_out_median_abs_relative_error"] = heldOut.empty() ? NAN : median(heldOut);
    j["speedup_signs"] = signs;
    j["speedup_signs_right"] = signsRight;
    for (const ValidationResult& r : results) {
      j["results"].push_back({{"id", r.point->id},
                              {"metric", r.point->metric},
                              {"published", r.point->published},
                              {"predicted", r.predicted},
                              {"relative_error", r.relativeError},
                              {"error", r.error}});
    }
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf(
      "# tetrad validate: %zu points from %s (analytic engine, %s)\n", points.size(), dir.c_str(),
      fitted == 0
          ? "no constant fitted"
          : fmt::format("{} point{} fitted the one global constant", fitted, fitted == 1 ? "" : "s")
                .c_str());
  std::printf("%-28s %-14s %5s %-14s %12s %12s %8s %s\n", "point", "model", "devs", "metric",
              "published", "predicted", "error", "sign");
  for (const ValidationResult& r : results) {
    const auto& p = *r.point;
    if (!r.error.empty()) {
      std::printf("%-28s %-14s %5d %-14s %12.4g %12s %8s  failed: %s\n", p.id.c_str(),
                  p.model.c_str(), p.devices(), p.metric.c_str(), p.published, "-", "-",
                  r.error.c_str());
      continue;
    }
    std::printf("%-28s %-14s %5d %-14s %12.4g %12.4g %+7.1f%% %s\n", p.id.c_str(), p.model.c_str(),
                p.devices(), p.metric.c_str(), p.published, r.predicted, 100 * r.relativeError,
                r.signRight < 0 ? "" : (r.signRight ? "right" : "WRONG"));
  }
  std::printf(
      "# median |error| %.1f%%, mean %.1f%% over %zu points; %d failed; speed-up signs right "
      "%d of %d\n# wrote %s/validation.csv%s\n",
      100 * median(errors), 100 * mean, errors.size(), failed, signsRight, signs, f.out.c_str(),
      plotNote.empty() ? ", validation.png" : plotNote.c_str());
  if (fitted > 0) {
    std::printf("# held out (not fitted): median |error| %.1f%% over %zu points\n",
                100 * median(heldOut), heldOut.size());
  }
}

void addValidateCommand(CommandGroups& groups) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = groups.root->add_subcommand(
      "validate", "Predict published measurements of real clusters and report the errors");
  cmd->add_option("dir", flags->dir, "Folder of validation points (default: configs/validation)");
  cmd->add_option("--out", flags->out, "Folder for validation.csv, the plot and the runs");
  cmd->add_option("--jobs", flags->jobs, "Points predicted at once (child processes)");
  cmd->add_option("--iterations", flags->iterations, "Timing-only iterations per point");
  cmd->add_flag("--json", flags->json, "One JSON object instead of the table");
  cmd->add_flag("--list", flags->list, "List the points (and check them) without predicting");
  cmd->callback([flags] { runValidate(*flags); });
}

CommandRegistration registration(addValidateCommand);

}  // namespace
}  // namespace tetrad::app
