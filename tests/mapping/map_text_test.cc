// A method map's printed tables (mapping/map_text.h): the winner table's
// rows and columns, and the advisor's agreement against its baselines.
#include "tetrad/mapping/map_text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tetrad::mapping {
namespace {

experiment::MapEntry entry(const std::string& method, double time, double predictedTime) {
  experiment::MapEntry e;
  e.method = method;
  e.timeToTarget = time;
  e.source = "retimed";
  e.timePerIteration = time / 100;
  e.iterationsToTarget = 100;
  e.predictedTimePerIteration = predictedTime / 100;
  e.predictedIterations = 100;
  return e;
}

// Two bandwidths × one latency: BSP wins the fast cell, Top-k the slow one;
// the advisor predicts BSP everywhere.
std::vector<experiment::MapCell> cells() {
  experiment::MapCell slow{1.25e7, 1e-4, {entry("bsp", 9, 1), entry("topk", 3, 2)}, 0};
  experiment::MapCell fast{1.25e9, 1e-4, {entry("bsp", 1, 1), entry("topk", 2, 2)}, 0};
  return {slow, fast};
}

TEST(MapText, WinnerTableHasARowPerLatencyAndAColumnPerBandwidth) {
  const experiment::MapAxis bandwidths{{1.25e7, 1.25e9}}, latencies{{1e-4}};
  const std::string table = winnerTable(bandwidths, latencies, cells());
  EXPECT_NE(table.find("0.1 Gb/s"), std::string::npos) << table;
  EXPECT_NE(table.find("10 Gb/s"), std::string::npos) << table;
  const size_t row = table.find("100.0 us");
  ASSERT_NE(row, std::string::npos) << table;
  const std::string line = table.substr(row, table.find('\n', row) - row);
  EXPECT_LT(line.find("topk"), line.find("bsp")) << line;
  EXPECT_EQ(table.find("workers"), std::string::npos) << "one worker count: no heading";
  // A cell nobody reaches shows "-"; several panels get headings.
  std::vector<experiment::MapCell> two = cells();
  for (auto& cell : two) cell.workers = 4;
  for (auto& e : two[1].entries) e.timeToTarget = NAN;
  for (experiment::MapCell cell : cells()) {
    cell.workers = 4;
    cell.computeScale = 0.1;
    two.push_back(cell);
  }
  const std::string both = winnerTable(bandwidths, latencies, two);
  EXPECT_NE(both.find("# compute ×1\n"), std::string::npos) << both;
  EXPECT_NE(both.find("# compute ×0.1\n"), std::string::npos) << both;
  EXPECT_EQ(both.find("workers"), std::string::npos) << "one worker count: not in the headings";
  EXPECT_NE(both.find(" -\n"), std::string::npos) << both;
}

TEST(MapText, AgreementCountsTheAdvisorAndItsBaselines) {
  const std::string text = agreementText(cells(), true, "143.4, fitted");
  EXPECT_NE(text.find("noise ratio 143.4, fitted"), std::string::npos) << text;
  EXPECT_NE(text.find("agrees in 1 of 2 cells"), std::string::npos) << text;
  EXPECT_NE(text.find("exactly the fastest in 1 of 2 cells"), std::string::npos) << text;
  EXPECT_NE(text.find("baseline, cost model alone"), std::string::npos) << text;
  EXPECT_NE(text.find("baseline, three rules"), std::string::npos) << text;
  const std::string none = agreementText(cells(), false, "1");
  EXPECT_NE(none.find("not counted"), std::string::npos) << none;
  EXPECT_EQ(none.find("baseline"), std::string::npos) << none;
}

}  // namespace
}  // namespace tetrad::mapping
