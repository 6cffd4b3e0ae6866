// Reading run folders, the results table, grouping, the comparison tables
// and the plot script, on the checked-in fixture runs
// (tests/experiment/fixtures/runs: clusters slow, fast, fast8; methods bsp
// and fp16; one failed run).
#include <gtest/gtest.h>

#include <cmath>

#include "tetrad/experiment/report_plots.h"
#include "tetrad/experiment/report_table.h"
#include "tetrad/experiment/results_table.h"
#include "tetrad/experiment/run_groups.h"
#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {
namespace {

const std::string kRuns = std::string(TETRAD_EXPERIMENT_FIXTURES) + "/runs";

TEST(RunRecord, ReadsSummaryConfigAndLabels) {
  const RunRecord r = readRunFolder(kRuns + "/fp16-slow-s1-2b3c4d5e");
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.method, "fp16");
  EXPECT_EQ(r.cluster, "slow");
  EXPECT_EQ(r.compress, "fp16");
  EXPECT_EQ(r.workers, 4);
  EXPECT_EQ(r.iterations, 40);
  EXPECT_DOUBLE_EQ(r.finalAccuracy, 0.8);
  EXPECT_DOUBLE_EQ(r.timeToTarget, 0.08);
  EXPECT_DOUBLE_EQ(r.bytesPerWorkerIter, 200000);
  EXPECT_DOUBLE_EQ(r.commTime, 0.08);
  EXPECT_EQ(r.extraJson, "");
  EXPECT_EQ(readRunFolder(kRuns + "/fp16-fast-s1-4d5e6f70").extraJson,
            "{\"staleness_histogram\":[40]}");
}

TEST(RunRecord, FailedAndMissingFoldersStillRead) {
  const RunRecord failed = readRunFolder(kRuns + "/topk-slow-s1-7a8b9c0d");
  EXPECT_EQ(failed.status, "failed");
  EXPECT_EQ(failed.method, "topk");
  EXPECT_TRUE(std::isnan(failed.finalAccuracy));
  EXPECT_EQ(readRunFolder(kRuns + "/no-such-run").status, "not run");
}

TEST(RunRecord, FoldersInSweepOrderAndCurves) {
  const std::vector<RunRecord> records = readRunFolders(kRuns);
  ASSERT_EQ(records.size(), 7u);
  EXPECT_EQ(records[0].name, "bsp-slow-s1-1a2b3c4d");
  EXPECT_EQ(records[1].name, "fp16-slow-s1-2b3c4d5e");
  EXPECT_EQ(records[2].name, "topk-slow-s1-7a8b9c0d");
  EXPECT_EQ(records[3].cluster, "fast");
  const std::vector<EvalPoint> curve = readEvalCurve(records[0].folder);
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_EQ(curve[3].iteration, 40);
  EXPECT_DOUBLE_EQ(curve[3].time, 0.24);
  EXPECT_GT(curve[3].accuracy, curve[0].accuracy);
}

TEST(ResultsTable, CsvQuotesAndLeavesMissingValuesEmpty) {
  RunRecord r;
  r.method = "topk";
  r.cluster = "slow";
  r.seed = 3;
  r.status = "failed";
  r.compress = "topk:0.01,ef";
  const std::string row = resultCsvRow(r);
  EXPECT_EQ(row.substr(0, 21), "topk,slow,3,failed,,,");
  EXPECT_NE(row.find(",\"topk:0.01,ef\","), std::string::npos) << row;
  // As many fields as columns (the quoted comma does not count).
  size_t commas = 0;
  bool quoted = false;
  for (char c : row) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++commas;
  }
  EXPECT_EQ(commas + 1, resultColumns().size());
  const std::string json = resultJsonRow(r);
  EXPECT_NE(json.find("\"final_accuracy\":null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"compress\":\"topk:0.01,ef\""), std::string::npos) << json;
}

TEST(RunGroups, BaselineAndSpeedUps) {
  const std::vector<ClusterGroup> groups = groupRuns(readRunFolders(kRuns));
  ASSERT_EQ(groups.size(), 3u);
  const ClusterGroup& slow = groups[0];
  EXPECT_EQ(slow.cluster, "slow");
  ASSERT_EQ(slow.rows.size(), 2u);  // the failed topk run does not count
  EXPECT_EQ(slow.baseline, 0);
  EXPECT_TRUE(slow.rows[0].isBaseline);
  EXPECT_DOUBLE_EQ(slow.rows[1].commPerIter, 0.002);
  EXPECT_NEAR(speedUp(slow.rows[0].timeToTarget, slow.rows[1].timeToTarget), 1.5, 1e-9);
  EXPECT_NEAR(speedUp(slow.rows[0].timePerIter, slow.rows[1].timePerIter), 1.5, 1e-9);
  EXPECT_TRUE(std::isnan(speedUp(kMissing, 1)));
  EXPECT_TRUE(isBaselinePoint("bsp", "allreduce:rd", "none", "none"));
  EXPECT_FALSE(isBaselinePoint("bsp", "allreduce:ring", "fp16", "none"));
  EXPECT_FALSE(isBaselinePoint("ssp:4", "ps", "none", "none"));
}

TEST(ReportTable, OneTablePerClusterWithSpeedUps) {
  const std::string tables = markdownTables(groupRuns(readRunFolders(kRuns)));
  // The network model its runs recorded (config.json), where they did.
  EXPECT_NE(tables.find("## cluster slow: sim:1Gbps,50us, 4 workers, network model cm02\n"),
            std::string::npos);
  EXPECT_NE(tables.find("## cluster fast8: sim:10Gbps,25us, 8 workers\n"), std::string::npos);
  // The fixtures' config.json has no lr ("-"); fp16 is the fp16 baseline.
  EXPECT_NE(tables.find("| bsp (baseline) | bsp | allreduce:ring | none | none | - | 1 | 0.8100 |"),
            std::string::npos)
      << tables;
  EXPECT_NE(
      tables.find("| fp16 (fp16 baseline) | bsp | allreduce:ring | fp16 | none | - | 1 | 0.8000 |"),
      std::string::npos)
      << tables;
  EXPECT_NE(tables.find("| 1.50× |"), std::string::npos) << tables;
  EXPECT_EQ(tables.find("topk"), std::string::npos);
}

TEST(ReportPlots, ScriptDrawsEveryPlotInPngAndSvg) {
  const PlotSet plots = buildPlots(groupRuns(readRunFolders(kRuns)), "pngcairo");
  // 3 clusters x 4 plots (accuracy/time, accuracy/bytes, panels, breakdown)
  // + scaling (fast and fast8 share a spec), PNG and SVG.
  EXPECT_EQ(plots.images.size(), 26u);
  for (const std::string& image : plots.images) {
    EXPECT_NE(plots.script.find("set output '" + image + "'"), std::string::npos) << image;
  }
  EXPECT_NE(plots.script.find("set terminal pngcairo"), std::string::npos);
  EXPECT_NE(plots.script.find("set terminal svg"), std::string::npos);
  EXPECT_NE(plots.script.find("rowstacked"), std::string::npos);
  bool scaling = false;
  for (const auto& [name, contents] : plots.data) {
    if (name == "scaling.tsv") {
      scaling = true;
      EXPECT_NE(contents.find("\n4\t"), std::string::npos) << contents;
      EXPECT_NE(contents.find("\n8\t"), std::string::npos) << contents;
    }
  }
  EXPECT_TRUE(scaling);
  EXPECT_EQ(fileSafe("10 GbE/x"), "10_GbE_x");
}

}  // namespace
}  // namespace tetrad::experiment
