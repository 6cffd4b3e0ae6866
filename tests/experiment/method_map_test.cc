// Method maps (experiment/method_map.h): axes, the winner and the advised
// method of a cell, and the advisor's agreement with a known answer.
#include "tetrad/experiment/method_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tetrad/core/error.h"

namespace tetrad::experiment {
namespace {

MapEntry entry(const std::string& method, double time, double predictedPerIter,
               double predictedIters) {
  MapEntry e;
  e.method = method;
  e.timeToTarget = time;
  e.source = "retimed";
  e.timePerIteration = time / 100;
  e.iterationsToTarget = 100;
  e.predictedTimePerIteration = predictedPerIter;
  e.predictedIterations = predictedIters;
  return e;
}

TEST(MethodMap, AxesAreLogSpacedAndInclusive) {
  const MapAxis b = parseBandwidthAxis("100Mbps:100Gbps:4", "--map-bandwidth");
  ASSERT_EQ(b.values.size(), 4u);
  EXPECT_DOUBLE_EQ(b.values.front(), 100e6 / 8);
  EXPECT_NEAR(b.values[1], 1e9 / 8, 1e-3);
  EXPECT_NEAR(b.values.back(), 100e9 / 8, 1);
  const MapAxis l = parseLatencyAxis("1us:1ms:3", "--map-latency");
  ASSERT_EQ(l.values.size(), 3u);
  EXPECT_NEAR(l.values[1], std::sqrt(1e-6 * 1e-3), 1e-12);
  EXPECT_EQ(parseLatencyAxis("5us:5us:1", "x").values.size(), 1u);
  EXPECT_EQ(mapClusterSpec(1e9 / 8, 25e-6), "sim:1000Mbps,25000ns");
}

// The compute axis: its factors, and the panels a map's cells fall into.
TEST(MethodMap, ComputeScalesMakePanelsWithTitles) {
  EXPECT_EQ(parseComputeScales("0.1,1,10", "--map-compute"), (std::vector<double>{0.1, 1, 10}));
  EXPECT_EQ(parseComputeScales("1", "--map-compute"), std::vector<double>{1});
  for (const char* bad : {"", "0", "1,,2", "1,-1", "x", "1,1", "inf"}) {
    try {
      parseComputeScales(bad, "--map-compute");
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("--map-compute"), std::string::npos) << e.what();
    }
  }
  std::vector<MapCell> cells;
  for (int workers : {4, 8}) {
    for (double scale : {0.1, 1.0}) {
      for (double bandwidth : {1e8, 1e9}) {
        MapCell cell{bandwidth, 1e-6, {}, workers};
        cell.computeScale = scale;
        cells.push_back(cell);
      }
    }
  }
  const std::vector<MapPanel> panels = panelsOf(cells);
  ASSERT_EQ(panels.size(), 4u);
  EXPECT_EQ(panelTitle(panels[1], panels), "4 workers, compute ×1");
  EXPECT_TRUE(panels[2].holds(cells[4]));
  EXPECT_FALSE(panels[2].holds(cells[0]));
  const std::vector<MapPanel> one = {panels[0]};
  EXPECT_EQ(panelTitle(panels[0], one), "");
  const std::vector<MapPanel> counts = {panels[0], panels[2]};
  EXPECT_EQ(panelTitle(panels[2], counts), "8 workers");
}

TEST(MethodMap, BadRangesAreRefusedNamingTheFlag) {
  for (const char* bad : {"10Gbps:1Gbps:3", "1Gbps:10Gbps:0", "1Gbps:10Gbps", "1Gbps:2Gbps:1",
                          "fast:10Gbps:3", "1Gbps:10Gbps:65"}) {
    try {
      parseBandwidthAxis(bad, "--map-bandwidth");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("--map-bandwidth"), std::string::npos) << e.what();
    }
  }
}

TEST(MethodMap, WinnerIsTheFastestAndNeverReachedNeverWins) {
  MapCell cell{1e9, 1e-5, {entry("a", 2.0, 0, 0), entry("b", 1.0, 0, 0), entry("c", NAN, 0, 0)}};
  EXPECT_EQ(winnerOf(cell), "b");
  cell.entries[1].timeToTarget = 2.0;  // a tie: the earlier entry
  EXPECT_EQ(winnerOf(cell), "a");
  MapCell none{1e9, 1e-5, {entry("a", NAN, 0, 0)}};
  EXPECT_EQ(winnerOf(none), "");
}

// Three cells with known answers: the advice is the winner; within 10% of
// the winner (a tie); 30% slower (a disagreement, whose worst factor is the
// time per iteration); and a cell without a covered method is not counted.
TEST(MethodMap, AgreementCountsWinnersAndTiesWithinTenPercent) {
  std::vector<MapCell> cells;
  // Advised a (1 ms x 100 = 0.1 s predicted), a is the fastest.
  cells.push_back({1e8, 1e-6, {entry("a", 1.0, 1e-3, 100), entry("b", 1.2, 2e-3, 100)}});
  // Advised a, b is the fastest but a is within 10% (1.05 vs 1.0).
  cells.push_back({1e9, 1e-6, {entry("a", 1.05, 1e-3, 100), entry("b", 1.0, 2e-3, 100)}});
  // Advised a, b is the fastest and a is 30% slower: a disagreement.
  cells.push_back({1e10, 1e-6, {entry("a", 1.3, 1e-3, 100), entry("b", 1.0, 2e-3, 100)}});
  // No prediction covers any method: not counted.
  cells.push_back({1e11, 1e-6, {entry("a", 1.0, 1e-3, NAN), entry("b", 2.0, NAN, 100)}});
  EXPECT_EQ(advisedOf(cells[0]), "a");
  EXPECT_EQ(advisedOf(cells[3]), "");
  const MapAgreement agreement = countAgreement(cells);
  EXPECT_EQ(agreement.cells, 3);
  EXPECT_EQ(agreement.agreed, 2);
  ASSERT_EQ(agreement.disagreements.size(), 1u);
  const std::string& line = agreement.disagreements[0];
  EXPECT_NE(line.find("sim:80000Mbps"), std::string::npos) << line;
  EXPECT_NE(line.find("advised a"), std::string::npos) << line;
  EXPECT_NE(line.find("fastest b"), std::string::npos) << line;
  // a's time per iteration: predicted 1 ms against 13 ms retimed.
  EXPECT_NE(line.find("time per iteration predicted 0.08x"), std::string::npos) << line;
  // A tighter tolerance turns the tie into a disagreement too.
  EXPECT_EQ(countAgreement(cells, 0.01).agreed, 1);
}

// A disagreement where the advised method may have crossed the target
// before the winner (between its last two evaluations) is a tie the runs
// cannot resolve: counted apart from the agreement and marked in its line;
// one evaluation step shorter, it is a plain disagreement.
TEST(MethodMap, TiesWithinOneEvaluationStepAreCountedApart) {
  MapCell cell{1e8, 1e-6, {entry("a", 1.3, 1e-3, 100), entry("b", 1.0, 2e-3, 100)}};
  cell.entries[0].evaluationSeconds = 0.35;  // a crossed in (0.95 s, 1.3 s]
  MapAgreement agreement = countAgreement({cell});
  EXPECT_EQ(agreement.agreed, 0);
  EXPECT_EQ(agreement.tied, 1);
  ASSERT_EQ(agreement.disagreements.size(), 1u);
  EXPECT_NE(agreement.disagreements[0].find("a tie within one evaluation step"), std::string::npos)
      << agreement.disagreements[0];
  cell.entries[0].evaluationSeconds = 0.25;  // (1.05 s, 1.3 s]: after b
  agreement = countAgreement({cell});
  EXPECT_EQ(agreement.tied, 0);
  EXPECT_EQ(agreement.disagreements[0].find("tie"), std::string::npos);
  cell.entries[0].evaluationSeconds = NAN;  // not known: no tie
  EXPECT_EQ(countAgreement({cell}).tied, 0);
}

// A method predicted to need more iterations than its run had (infinite
// predicted iterations) is never advised; a disagreement names that.
TEST(MethodMap, PredictedNeverIsNotAdvised) {
  MapCell cell{1e8, 1e-6, {entry("a", 1.0, 1e-4, INFINITY), entry("b", 2.0, 1e-3, 100)}};
  EXPECT_EQ(advisedOf(cell), "b");
  const MapAgreement agreement = countAgreement({cell});
  ASSERT_EQ(agreement.disagreements.size(), 1u);
  EXPECT_NE(agreement.disagreements[0].find(
                "predicted not to reach the target within its run's iterations, reached it at"),
            std::string::npos)
      << agreement.disagreements[0];
}

// Two worker counts and several seeds: map.csv says each cell's worker count
// (its cluster spec too), the seeds and their spread; the winner map has a
// panel per worker count.
TEST(MethodMap, WorkerCountsAreAnAxisAndSeedsAreCounted) {
  std::vector<MapCell> cells;
  for (int workers : {4, 8}) {
    for (double latency : {1e-6, 1e-4}) {
      for (double bandwidth : {1e8, 1e10}) {
        MapEntry a = entry("a", workers * 1.0, 0, 0), b = entry("b", 6.0, 0, 0);
        a.seeds = b.seeds = 3;
        a.timeStd = 0.25;
        cells.push_back({bandwidth, latency, {a, b}, workers});
      }
    }
  }
  cells[0].commToCompute = 2.5;  // R, where the cell knows it
  const std::string dir = ::testing::TempDir() + "/method_map_workers";
  const MapFiles files = writeMap(dir, cells);
  std::ifstream csv(files.csv);
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header,
            "bandwidth_bps,latency_s,workers,cluster,method,time_to_target,time_std,seeds,source,"
            "winner,r,compute_scale");
  std::vector<std::string> rows;
  while (std::getline(csv, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_EQ(rows[0], "8e+08,1e-06,4,\"sim:4x800Mbps,1000ns\",a,4,0.25,3,retimed,1,2.5,1");
  // At 8 workers a takes 8 s and b (6 s) wins.
  EXPECT_EQ(rows[9], "8e+08,1e-06,8,\"sim:8x800Mbps,1000ns\",b,6,,3,retimed,1,,1");
  std::ifstream script(dir + "/map.gp");
  const std::string gp((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(gp.find("set multiplot layout 1,3"), std::string::npos);  // and the legend
  EXPECT_NE(gp.find("Fastest method, 8 workers"), std::string::npos);
  for (const std::string& image : files.images) {
    EXPECT_GT(std::filesystem::exists(image) ? std::filesystem::file_size(image) : 0, 1000u)
        << image;
  }
}

TEST(MethodMap, WinnerPictureListsOnlyTheWinnersInDistinctColours) {
  // Twelve methods, of which "m3" and "m11" win: the winner picture's legend
  // names those two only, each in its own colour (twelve methods in ten
  // colours would repeat one).
  std::vector<MapCell> cells;
  for (double bandwidth : {1e8, 1e10}) {
    std::vector<MapEntry> entries;
    for (int m = 0; m < 12; ++m) {
      const bool wins = (bandwidth < 1e9 && m == 3) || (bandwidth > 1e9 && m == 11);
      entries.push_back(entry("m" + std::to_string(m), wins ? 1.0 : 2.0 + m, NAN, NAN));
    }
    cells.push_back({bandwidth, 1e-5, entries});
  }
  const std::string dir = ::testing::TempDir() + "/method_map_winners";
  writeMap(dir, cells);
  std::ifstream script(dir + "/map.gp");
  const std::string gp((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(gp.find("title 'm3'"), std::string::npos);
  EXPECT_NE(gp.find("title 'm11'"), std::string::npos);
  EXPECT_EQ(gp.find("title 'm0'"), std::string::npos);
  EXPECT_NE(gp.find("set palette defined (0 '#1f77b4', 1 '#ff7f0e')"), std::string::npos);
  std::ifstream data(dir + "/map_winner.dat");
  const std::string winners((std::istreambuf_iterator<char>(data)),
                            std::istreambuf_iterator<char>());
  // m3, the first winner, by 2.00x over m0 (2 s against 1 s); m11, the
  // second, by 2.00x; no advice in the cells, so no "*"; no R known.
  EXPECT_NE(winners.find("\t0\t2.00x\t\n"), std::string::npos) << winners;
  EXPECT_NE(winners.find("\t1\t2.00x\t\n"), std::string::npos) << winners;
  // The axes in units: tics at the grid's values, the single latency a strip.
  EXPECT_NE(gp.find("set xtics (\"0.8 Gb/s\" -0.09691, \"80 Gb/s\" 1.90309)"), std::string::npos);
  EXPECT_NE(gp.find("set ytics (\"10.0 us\" 1)\nset yrange [0.5:1.5]"), std::string::npos);
  EXPECT_NE(gp.find("size 900,300"), std::string::npos);
}

// One latency and a compute axis: the picture's y-axis is the compute scale
// (a 2 x 2 image, not a strip per scale), tics labelled with the factors.
TEST(MethodMap, OneLatencyDrawsTheComputeAxisAsTheYAxis) {
  std::vector<MapCell> cells;
  for (double scale : {0.1, 10.0}) {
    for (double bandwidth : {1e8, 1e10}) {
      cells.push_back({bandwidth, 1e-5, {entry("a", scale, NAN, NAN), entry("b", 1, NAN, NAN)}});
      cells.back().computeScale = scale;
    }
  }
  const std::string dir = ::testing::TempDir() + "/method_map_compute";
  writeMap(dir, cells);
  std::ifstream script(dir + "/map.gp");
  const std::string gp((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(gp.find("set ylabel 'compute time per iteration, at 10.0 us latency'"),
            std::string::npos)
      << gp;
  EXPECT_NE(gp.find("set ytics (\"×0.1\" -1, \"×10\" 1)"), std::string::npos) << gp;
  EXPECT_NE(gp.find("with image"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("multiplot"), std::string::npos) << "one worker count: one panel";
  std::ifstream data(dir + "/map_winner.dat");
  const std::string winners((std::istreambuf_iterator<char>(data)),
                            std::istreambuf_iterator<char>());
  // a wins at x0.1 (0.1 s against 1 s), b at x10.
  EXPECT_NE(winners.find("-0.09691\t-1\t0\t10.00x"), std::string::npos) << winners;
  EXPECT_NE(winners.find("-0.09691\t1\t1\t10.00x"), std::string::npos) << winners;
}

TEST(MethodMap, CellLabelsMarkTheAdvisorsDisagreement) {
  // Two methods; the advisor predicts the slower one (b) faster.
  std::vector<MapCell> cells;
  for (double bandwidth : {1e8, 1e10}) {
    cells.push_back({bandwidth, 1e-5, {entry("a", 1.0, 0, 0), entry("b", 1.5, 0, 0)}});
    cells.back().entries[0].predictedTimePerIteration = 2;
    cells.back().entries[0].predictedIterations = 1;
    cells.back().entries[1].predictedTimePerIteration = 1;
    cells.back().entries[1].predictedIterations = 1;
  }
  cells[0].commToCompute = 263.4;  // R, drawn below the label: whole from 10
  cells[1].commToCompute = 0.1638;
  // In the second cell the seeds overlap: a lead the runs cannot tell ("~").
  cells[1].entries[0].seedTimes = {0.6, 1.4};
  cells[1].entries[1].seedTimes = {1.0, 2.0};
  cells[0].entries[0].seedTimes = {0.99, 1.01};
  cells[0].entries[1].seedTimes = {1.49, 1.51};
  EXPECT_FALSE(tiedWin(cells[0]));
  EXPECT_TRUE(tiedWin(cells[1]));
  const std::string dir = ::testing::TempDir() + "/method_map_labels";
  writeMap(dir, cells);
  std::ifstream data(dir + "/map_winner.dat");
  const std::string winners((std::istreambuf_iterator<char>(data)),
                            std::istreambuf_iterator<char>());
  EXPECT_NE(winners.find("\t0\t1.50x *\tR=263\n"), std::string::npos) << winners;
  EXPECT_NE(winners.find("\t0\t1.50x ~ *\tR=0.16\n"), std::string::npos) << winners;
}

}  // namespace
}  // namespace tetrad::experiment
