// writeMap (method_map.h): a method map's files — map.csv, and the
// pictures drawn by gnuplot from map.gp (the winner per cell, labelled with
// its margin and the advisor's disagreements; time to target against
// bandwidth at the middle latency).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/gnuplot.h"
#include "tetrad/experiment/method_map.h"

namespace tetrad::experiment {
namespace {

namespace fs = std::filesystem;

// A CSV field: quoted when it holds a comma or a quote (RFC 4180).
std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Word-safe label for gnuplot (no quotes or spaces).
std::string plotWord(const std::string& text) {
  std::string out;
  for (char c : text) out += (c == '"' || c == '\'' || c == ' ' || c == '\t') ? '_' : c;
  return out;
}

// map.csv: one row per (cell, method), the cell's winner marked.
void writeMapCsv(const std::string& path, const std::vector<MapCell>& cells) {
  std::ofstream csv(path);
  csv << "bandwidth_bps,latency_s,workers,cluster,method,time_to_target,time_std,seeds,source,"
         "winner,r,compute_scale\n";
  auto number = [](double v) {
    return std::isfinite(v) ? fmt::format("{:.9g}", v) : std::string();
  };
  for (const MapCell& cell : cells) {
    const std::string winner = winnerOf(cell);
    for (const MapEntry& e : cell.entries) {
      csv << fmt::format(
          "{:.6g},{:.6g},{},{},{},{},{},{},{},{},{},{:g}\n", cell.bandwidth * 8, cell.latency,
          cell.workers, csvField(mapClusterSpec(cell.bandwidth, cell.latency, cell.workers)),
          csvField(e.method), number(e.timeToTarget), number(e.timeStd), e.seeds, e.source,
          e.method == winner ? 1 : 0, number(cell.commToCompute), cell.computeScale);
    }
  }
  TETRAD_CHECK(csv.good(), Error, "cannot write {}", path);
}

// R as a cell shows it: two digits ("0.16", "7.8"), whole from 10 ("260").
std::string ratioText(double r) {
  return r >= 10 ? fmt::format("{:.0f}", r) : fmt::format("{:.2g}", r);
}

// A cell's label: the winner's margin over the runner-up ("1.23x"; "only"
// when no other method reaches the target), " *" when the advisor picked a
// method neither the winner nor within 10% of it; " ~" before it when the
// lead is within the 95% interval over seeds (tiedWin()). The cell's R goes on a
// line of its own below (ratioLabel), so that narrow cells stay legible.
std::string cellLabel(const MapCell& cell) {
  const std::string winner = winnerOf(cell);
  if (winner.empty()) return "-";
  double best = INFINITY, second = INFINITY;
  for (const MapEntry& e : cell.entries) {
    if (!std::isfinite(e.timeToTarget)) continue;
    if (e.timeToTarget < best) {
      second = best;
      best = e.timeToTarget;
    } else if (e.timeToTarget < second) {
      second = e.timeToTarget;
    }
  }
  std::string label = std::isfinite(second) ? fmt::format("{:.2f}x", second / best) : "only";
  const bool advised = !advisedOf(cell).empty();
  if (tiedWin(cell)) label += " ~";
  return !advised || adviceAgrees(cell) ? label : label + " *";
}

// Winner per cell: x = log10 Gb/s, y = log10 µs (or, on a map of one
// latency and several compute scales, log10 of the scale), the winner's index in
// `winners` (NaN where no method reaches the target: left blank), its
// label; a data block per panel (worker count and compute scale).
std::string winnerDataOf(const std::vector<MapCell>& cells, const std::vector<MapPanel>& panels,
                         const std::vector<std::string>& winners, bool computeAsY) {
  std::string data;
  for (const MapPanel& panel : panels) {
    for (const MapCell& cell : cells) {
      if (!panel.holds(cell)) continue;
      const std::string winner = winnerOf(cell);
      const auto it = std::find(winners.begin(), winners.end(), winner);
      data += fmt::format(
          "{:.6g}\t{:.6g}\t{}\t{}\t{}\n", std::log10(cell.bandwidth * 8 / 1e9),
          computeAsY ? std::log10(cell.computeScale) : std::log10(cell.latency * 1e6),
          it == winners.end() ? std::string("NaN") : std::to_string(it - winners.begin()),
          cellLabel(cell),
          std::isfinite(cell.commToCompute) ? "R=" + ratioText(cell.commToCompute) : "");
    }
    data += "\n\n";
  }
  return data;
}

// gnuplot tics at log10 of each grid value, labelled in units ("0.1 Gb/s",
// "31.6 us"), and a range half a step beyond the outer ones (one step for a
// single value: a strip).
enum class TicText { kBandwidth, kLatency, kComputeScale };
std::string logTics(const char* axis, const std::map<double, int>& values, double scale,
                    TicText kind) {
  std::string tics;
  for (const auto& [value, unused] : values) {
    const double scaled = value * scale;
    const std::string text = kind == TicText::kBandwidth ? fmt::format("{:.3g} Gb/s", scaled)
                             : kind == TicText::kLatency ? formatSeconds(value)
                                                         : fmt::format("×{:g}", value);
    tics += fmt::format("{}\"{}\" {:.6g}", tics.empty() ? "" : ", ", text, std::log10(scaled));
  }
  const double low = std::log10(values.begin()->first * scale);
  const double high = std::log10(values.rbegin()->first * scale);
  const double step = values.size() > 1 ? (high - low) / double(values.size() - 1) : 1.0;
  return fmt::format("set {0}tics ({1})\nset {0}range [{2:.6g}:{3:.6g}]\n", axis, tics,
                     low - step / 2, high + step / 2);
}

struct TimeBlocks {
  std::string data, names;  // gnuplot data blocks, and their names (space-separated)
  int count = 0;
};

// Time to target against bandwidth at `latency`, a block per method (and
// panel); methods that never reach the target there have none.
TimeBlocks timeDataOf(const std::vector<MapCell>& cells, const std::vector<std::string>& methods,
                      const std::vector<MapPanel>& panels, double latency) {
  TimeBlocks out;
  for (const MapPanel& panel : panels) {
    const std::string title = panelTitle(panel, panels);
    for (const std::string& method : methods) {
      std::string block;
      bool predicted = false;
      for (const MapCell& cell : cells) {
        if (cell.latency != latency || !panel.holds(cell)) continue;
        for (const MapEntry& e : cell.entries) {
          if (e.method != method) continue;
          predicted = predicted || e.source != "retimed";
          if (std::isfinite(e.timeToTarget))
            block += fmt::format("{:.6g}\t{:.9g}\n", cell.bandwidth * 8 / 1e9, e.timeToTarget);
        }
      }
      if (block.empty()) continue;  // never reaches the target there
      const std::string name = plotWord(method) + (predicted ? "_(cost_model)" : "") +
                               (title.empty() ? "" : plotWord("_(" + title + ")"));
      out.data += "# " + name + "\n" + block + "\n\n";
      out.names += (out.count ? " " : "") + name;
      ++out.count;
    }
  }
  return out;
}

// The methods that win a cell, in entry order: the winner picture colours
// and lists only them, so that its colours stay distinct.
std::vector<std::string> winnersOf(const std::vector<MapCell>& cells,
                                   const std::vector<std::string>& methods) {
  std::vector<std::string> winners;
  for (const std::string& method : methods) {
    const bool wins = std::any_of(cells.begin(), cells.end(),
                                  [&](const MapCell& cell) { return winnerOf(cell) == method; });
    if (wins) winners.push_back(method);
  }
  return winners;
}

// One colour per winner (cycled past sixteen): gnuplot's palette, and the
// legend's entries (each an empty plot in its colour).
struct WinnerColours {
  std::string palette, legend;
};
WinnerColours coloursOf(const std::vector<std::string>& winners) {
  static const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                   "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#ffd700",
                                   "#00ff7f", "#8b0000", "#00008b", "#ff69b4"};
  constexpr size_t kColourCount = sizeof(kColours) / sizeof(kColours[0]);
  WinnerColours out;
  for (size_t m = 0; m < winners.size(); ++m) {
    const char* colour = kColours[m % kColourCount];
    out.palette += fmt::format("{}{} '{}'", m ? ", " : "", m, colour);
    out.legend += fmt::format(", NaN with boxes fill solid lc rgb '{}' title '{}'", colour,
                              plotWord(winners[m]));
  }
  if (winners.size() <= 1)
    out.palette += fmt::format("{}1 '{}'", winners.empty() ? "0 '#ffffff', " : ", ", kColours[0]);
  return out;
}

// The winner picture's panels: the map's, or with the compute axis drawn as
// the y-axis, one per worker count holding every scale.
std::vector<MapPanel> picturePanelsOf(const std::vector<MapPanel>& panels, bool computeAsY) {
  if (!computeAsY) return panels;
  std::vector<MapPanel> out;
  for (const MapPanel& panel : panels) {
    if (std::none_of(out.begin(), out.end(),
                     [&](const MapPanel& p) { return p.workers == panel.workers; }))
      out.push_back({panel.workers, 1, true});
  }
  return out;
}

}  // namespace

MapFiles writeMap(const std::string& dir, const std::vector<MapCell>& cells) {
  TETRAD_CHECK(!cells.empty(), InvalidArgument, "the map has no cell");
  fs::create_directories(dir);
  MapFiles files;
  files.csv = (fs::path(dir) / "map.csv").string();
  writeMapCsv(files.csv, cells);
  // Methods in entry order; the grid's axes.
  std::vector<std::string> methods;
  std::map<double, int> bandwidths, latencies;
  const std::vector<MapPanel> panelList = panelsOf(cells);
  std::map<double, int> scales;
  for (const MapCell& cell : cells) {
    bandwidths[cell.bandwidth] = 0;
    latencies[cell.latency] = 0;
    scales[cell.computeScale] = 0;
    for (const MapEntry& e : cell.entries) {
      if (std::find(methods.begin(), methods.end(), e.method) == methods.end())
        methods.push_back(e.method);
    }
  }
  const std::string png = pngTerminal(dir);
  const std::vector<std::string> winners = winnersOf(cells, methods);
  const WinnerColours colours = coloursOf(winners);
  const std::string &palette = colours.palette, &legend = colours.legend;
  // One latency and several compute scales: the compute axis is the winner
  // picture's y-axis (a bandwidth × compute grid per worker count).
  const bool computeAsY = latencies.size() == 1 && scales.size() > 1;
  const std::vector<MapPanel> picturePanels = picturePanelsOf(panelList, computeAsY);
  const std::string winnerData = winnerDataOf(cells, picturePanels, winners, computeAsY);
  // Time to target against bandwidth at the middle latency, a block per method.
  auto middle = latencies.begin();
  std::advance(middle, latencies.size() / 2);
  const TimeBlocks time = timeDataOf(cells, methods, panelList, middle->first);
  const std::string& timeData = time.data;
  const std::string& timeNames = time.names;
  const int timeBlocks = time.count;
  TETRAD_CHECK(timeBlocks > 0, InvalidArgument,
               "no mapped method reaches the target at {} latency: nothing to draw",
               formatSeconds(middle->first));
  // A regular grid of at least 2 × 2 cells is an image; a row or a column
  // is drawn as squares.
  const bool strip = (latencies.size() == 1 && !computeAsY) || bandwidths.size() == 1;
  const std::string style = strip ? "with points pointtype 5 pointsize 7 palette" : "with image";
  std::ofstream(fs::path(dir) / "map_winner.dat") << winnerData;
  std::ofstream(fs::path(dir) / "map_time.dat") << timeData;
  const int last = int(methods.size()) - 1;
  // The winner map: one panel per worker count and compute scale, then (with
  // several) a panel holding only the legend, so that every map panel has
  // the same width.
  const int panels = int(picturePanels.size());
  std::string winnerPlots;
  for (int k = 0; k < panels; ++k) {
    winnerPlots += fmt::format(
        "set title '{}'\nplot 'map_winner.dat' index {} using 1:2:3 {} notitle, '' index {} "
        "using 1:2:4 with labels notitle, '' index {} using 1:2:5 with labels offset 0,-1.2 "
        "notitle{}\n",
        panels == 1 ? std::string("Fastest to the target (margin over the runner-up; ~ a tie; "
                                  "* advisor differs; R comm/compute)")
                    : "Fastest method, " + panelTitle(picturePanels[size_t(k)], picturePanels),
        k, style, k, k, panels == 1 ? legend : std::string());
  }
  const std::string winnerPlot =
      panels == 1 ? winnerPlots
                  : fmt::format(
                        "set multiplot layout 1,{}\n{}unset border\nunset tics\nunset xlabel\n"
                        "unset ylabel\nunset title\nset key center center\nset xrange [0:1]\n"
                        "set yrange [0:1]\nplot {}\nunset multiplot\n",
                        panels + 1, winnerPlots,
                        legend.empty() ? std::string("NaN notitle") : legend.substr(2));
  const int width = panels == 1 ? 900 : 400 * (panels + 1);
  const int height = strip ? 300 : 560;
  // The winner map's settings, given again after each terminal's reset (the
  // legend panel unsets some of them).
  const std::string winnerSetup = fmt::format(
      "set datafile separator \"\\t\"\nset datafile missing \"NaN\"\n"
      "set xlabel 'bandwidth'\nset ylabel '{}'\n{}{}"
      "set palette maxcolors {}\nset palette defined ({})\n"
      "set cbrange [-0.5:{}.5]\nunset colorbox\nset key outside right top\n",
      computeAsY ? fmt::format("compute time per iteration, at {} latency",
                               formatSeconds(latencies.begin()->first))
                 : std::string("latency"),
      logTics("x", bandwidths, 8 / 1e9, TicText::kBandwidth),
      computeAsY ? logTics("y", scales, 1, TicText::kComputeScale)
                 : logTics("y", latencies, 1e6, TicText::kLatency),
      std::max<size_t>(winners.size(), 2), palette, std::max(int(winners.size()) - 1, 0));
  const std::string script = fmt::format(
      "# Generated by tetrad advise --map: run `gnuplot map.gp` in this folder.\n"
      "set datafile separator \"\\t\"\n"
      "set datafile missing \"NaN\"\n"
      // The winner map.
      "reset\nset terminal {0} size {8},{10} noenhanced\nset output 'map_winner.png'\n{9}{7}"
      "reset\nset terminal svg size {8},{10} noenhanced\nset output 'map_winner.svg'\n{9}{7}"
      "unset output\n"
      // Time to target against bandwidth.
      "reset\nset datafile separator \"\\t\"\n"
      "set terminal {0} size 900,560 noenhanced\nset output 'map_time.png'\n"
      "set title 'Time to target at {4:.3g} us latency'\nset grid\n"
      "set logscale xy\nset xlabel 'bandwidth, Gb/s'\nset ylabel 'time to target, s'\n"
      "set key outside right top\nnames = \"{5}\"\n"
      "plot for [i=0:{6}] 'map_time.dat' index i using 1:2 with linespoints "
      "title word(names, i + 1)\n"
      "set terminal svg size 900,560 noenhanced\nset output 'map_time.svg'\nreplot\n"
      "unset output\n",
      png, std::max<size_t>(methods.size(), 2), std::max(last, 0), palette, middle->first * 1e6,
      timeNames, timeBlocks - 1, winnerPlot, width, winnerSetup, height);
  std::ofstream(fs::path(dir) / "map.gp") << script;
  runGnuplot("map.gp", dir);
  for (const char* image : {"map_winner.png", "map_winner.svg", "map_time.png", "map_time.svg"})
    files.images.push_back((fs::path(dir) / image).string());
  return files;
}

}  // namespace tetrad::experiment
