// Method maps: which method reaches the target first on which network
// (`tetrad advise --results DIR --map`, docs/advise.md "Maps").
//
// A map is a grid of star networks — bandwidth × latency, log-spaced, for
// each worker count the sweep trained — and, in each cell, every mapped
// method's time to target there (the mean over the seeds it was trained
// with): the
// caller fills the times (mapping/advise_map.cc retimes synchronous
// runs exactly, train/timing/retime.h, and predicts asynchronous ones with the
// cost model, marked so). This file owns the grid, the winner of a cell,
// map.csv and the pictures (gnuplot: the winner per cell as a coloured
// region map with a legend, one panel per worker count, and time to target
// against bandwidth, one line per method and worker count, at the grid's
// middle latency), all into one folder.
//
// Pure functions over values and files; call from one thread (gnuplot runs
// as a child process).
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace tetrad::experiment {

// A log-spaced axis: "MIN:MAX:STEPS" ("100Mbps:400Gbps:8", "1us:1ms:4").
// STEPS >= 1 values from MIN to MAX inclusive (STEPS 1: MIN alone, and then
// MIN must equal MAX). InvalidArgument naming `what` on min > max, steps < 1
// or a value that does not parse.
struct MapAxis {
  std::vector<double> values;  // bytes/s (bandwidth) or seconds (latency)
};
MapAxis parseBandwidthAxis(const std::string& text, const std::string& what);
MapAxis parseLatencyAxis(const std::string& text, const std::string& what);

// A star network of the grid as a cluster spec: "sim:BWMbps,LATns", or
// "sim:WxBWMbps,LATns" for `workers` > 0.
std::string mapClusterSpec(double bytesPerSecond, double latencySeconds, int workers = 0);

// What the advisor's baselines (map_baselines.h) need to know of a method:
// set by whoever builds the entries, from the method's policies' traits
// (model/method_traits.h); experiment/ never reads a method's name.
enum class MethodKind {
  kOther,
  kPlainBsp,        // uncompressed BSP on an all-reduce
  kHalfPrecision,   // BSP with fp16 or bf16
  kErrorFeedback,   // a compressor with error feedback
  kModelAveraging,  // Local SGD, post-local SGD
};

struct MapEntry {
  std::string method;       // the sweep's method label
  double timeToTarget = 0;  // seconds (mean over seeds); NaN: never reaches the target
  std::string source;       // "retimed" or "cost model"
  // The two factors of timeToTarget (time per iteration on this network,
  // iterations to target as measured) and the advisor's prediction of each
  // (the cost model; BSP's measured iterations × the convergence theory's
  // multiplier, NaN where no theory covers the method).
  double timePerIteration = NAN;
  double iterationsToTarget = NAN;
  double predictedTimePerIteration = NAN;
  double predictedIterations = NAN;
  // Seeds behind timeToTarget (every one reached the target, else it is
  // NaN) and their standard deviation (NaN for one seed).
  int seeds = 1;
  double timeStd = NAN;
  // The measurement's resolution: the time of the iterations between two
  // evaluations on this network (evaluation interval × timePerIteration).
  // The target was crossed somewhere in (timeToTarget − this, timeToTarget];
  // NaN when not known.
  double evaluationSeconds = NAN;
  // Each seed's time to target (timeToTarget is their mean), for the
  // interval of a win (tiedWin()); empty when not known.
  std::vector<double> seedTimes;
  MethodKind kind = MethodKind::kOther;
  double predictedTimeToTarget() const { return predictedTimePerIteration * predictedIterations; }
};

struct MapCell {
  double bandwidth = 0;  // bytes/s
  double latency = 0;    // seconds
  std::vector<MapEntry> entries;
  int workers = 0;  // 0: not stated (one worker count)
  // R: uncompressed BSP's communication time per iteration over its compute
  // time on this cell's network (the cost model's), the axis on which
  // compression pays (R ≳ 1) or not; NaN where the sweep has no plain BSP.
  double commToCompute = NAN;
  // The compute axis: the runs' compute time per iteration × this (0.1: a
  // device ten times faster; 1: as trained), which moves R by 1/scale.
  double computeScale = 1;
};

// A map's panels: one per (worker count, compute scale) of its cells, in
// cell order; a cell belongs to the panel with its two values.
struct MapPanel {
  int workers = 0;
  double computeScale = 1;
  bool everyScale = false;  // the panel's y-axis is the compute axis: every scale
  bool holds(const MapCell& cell) const {
    return cell.workers == workers && (everyScale || cell.computeScale == computeScale);
  }
};
std::vector<MapPanel> panelsOf(const std::vector<MapCell>& cells);
// "8 workers, compute ×0.1" (only the parts that vary over `panels`; ""
// for a map of one panel).
std::string panelTitle(const MapPanel& panel, const std::vector<MapPanel>& panels);
// The compute axis: "0.1,1,10" (comma-separated factors > 0, each once).
// InvalidArgument naming `what` otherwise.
std::vector<double> parseComputeScales(const std::string& text, const std::string& what);

// The method with the smallest finite time to target ("" when none reaches
// it); ties go to the earlier entry.
std::string winnerOf(const MapCell& cell);

// True when the cell's winner leads its runner-up by less than the runs
// can tell: the 95% bootstrap interval over seeds of runner-up time over
// winner time (bootstrap.h) holds 1. False where it cannot be computed
// (one seed, no runner-up).
bool tiedWin(const MapCell& cell);

// The advisor's pick in a cell: the smallest finite predicted time to
// target ("" when no entry has one).
std::string advisedOf(const MapCell& cell);

// Agreement of the advisor with the map (issue 22, item 5): over every cell
// with a winner and an advised method, the advised method agrees when it is
// the winner or its time to target is within `tolerance` (relative) of the
// winner's. Each disagreement is one line: the cell, both methods, and the
// factor that was off most (time per iteration or iterations, predicted
// against measured, as a ratio).
// A disagreement is also counted as a tie the runs cannot resolve when the
// advised method may have crossed the target before the winner did: its
// time at the evaluation before the one that saw the target is below the
// winner's time to target (timeToTarget − evaluationSeconds < winner's).
// Ties are reported beside the agreement, never inside it.
struct MapAgreement {
  int cells = 0;    // cells with a winner and an advised method
  int agreed = 0;   // of which the advice agrees (the winner, or within tolerance)
  int exact = 0;    // of which the advice is the winner itself
  int crowded = 0;  // cells where 2 or more methods are within tolerance of the winner
  int tied = 0;     // of the others, ties within one evaluation step
  std::vector<std::string> disagreements;  // ties marked as such
};
inline constexpr double kAgreementTolerance = 0.10;
MapAgreement countAgreement(const std::vector<MapCell>& cells,
                            double tolerance = kAgreementTolerance);
// True when the cell's advised method is its winner or within `tolerance`
// of the winner's time; false too when the cell has no winner or no advice.
bool adviceAgrees(const MapCell& cell, double tolerance = kAgreementTolerance);

struct MapFiles {
  std::string csv;                  // map.csv
  std::vector<std::string> images;  // map_winner.{png,svg}, map_time.{png,svg}
};

// Writes map.csv (bandwidth_bps, latency_s, workers, cluster, method,
// time_to_target, time_std, seeds, source, winner) and draws the pictures
// into `dir`.
MapFiles writeMap(const std::string& dir, const std::vector<MapCell>& cells);

}  // namespace tetrad::experiment
