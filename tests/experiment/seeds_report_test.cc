// Seed statistics, the fp16 baseline, ties and the layer-wise label, on
// checked-in runs (tests/experiment/fixtures/seeds: one cluster "net"; bsp,
// fp16 and topk with seeds 1-3, fp16-lw with bucket_bytes 0 and one seed).
// Every expected number below is computed by hand from those files.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tetrad/experiment/report_plots.h"
#include "tetrad/experiment/report_table.h"
#include "tetrad/experiment/run_groups.h"
#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {
namespace {

const std::string kSeeds = std::string(TETRAD_EXPERIMENT_FIXTURES) + "/seeds";

const ClusterGroup& net() {
  static const std::vector<ClusterGroup> groups = groupRuns(readRunFolders(kSeeds));
  EXPECT_EQ(groups.size(), 1u);
  return groups.front();
}

TEST(SeedStatistics, MeanAndSampleStdEqualAHandComputation) {
  const ClusterGroup& g = net();
  ASSERT_EQ(g.rows.size(), 4u);
  const MethodRow& bsp = g.rows[0];
  EXPECT_EQ(bsp.method, "bsp");
  EXPECT_EQ(bsp.seeds, 3);
  // accuracy 0.80, 0.82, 0.84: mean 0.82; deviations ±0.02, 0 -> var 0.0008/2.
  EXPECT_NEAR(bsp.accuracyMean, 0.82, 1e-12);
  EXPECT_NEAR(bsp.accuracyStd, 0.02, 1e-12);
  // time to target 1.0, 1.2, 1.4 s; iterations 100, 120, 140.
  EXPECT_NEAR(bsp.timeToTarget, 1.2, 1e-12);
  EXPECT_NEAR(bsp.timeToTargetStd, 0.2, 1e-12);
  EXPECT_NEAR(bsp.itersToTarget, 120, 1e-9);
  EXPECT_NEAR(bsp.itersToTargetStd, 20, 1e-9);
  // 2 s over 200 iterations on every seed.
  EXPECT_NEAR(bsp.timePerIter, 0.01, 1e-12);
  EXPECT_NEAR(bsp.timePerIterStd, 0, 1e-12);
  EXPECT_EQ(bsp.curveFolders.size(), 3u);

  const MethodRow& topk = g.rows[2];
  EXPECT_EQ(topk.method, "topk");
  EXPECT_NEAR(topk.accuracyMean, 0.81, 1e-12);
  EXPECT_NEAR(topk.accuracyStd, 0.01, 1e-12);
  EXPECT_NEAR(topk.timeToTarget, 1.1, 1e-12);
  EXPECT_NEAR(topk.timeToTargetStd, 0.1, 1e-12);
  EXPECT_NEAR(topk.itersToTarget, 110, 1e-9);
  EXPECT_NEAR(topk.itersToTargetStd, 10, 1e-9);
  EXPECT_DOUBLE_EQ(topk.lr, 0.05);
  EXPECT_EQ(topk.lrTunedFrom, "0.1;0.05");

  const MethodRow& lw = g.rows[3];
  EXPECT_EQ(lw.seeds, 1);
  EXPECT_TRUE(std::isnan(lw.accuracyStd));  // one seed: no spread
  EXPECT_TRUE(lw.layerWise);
}

TEST(SeedStatistics, BaselinesSkipLayerWiseRuns) {
  const ClusterGroup& g = net();
  EXPECT_EQ(g.baseline, 0);
  EXPECT_EQ(g.fp16Baseline, 1);  // the fused fp16, not fp16-lw
  EXPECT_TRUE(g.rows[1].isFp16Baseline);
  EXPECT_FALSE(g.rows[3].isFp16Baseline);
  EXPECT_FALSE(g.rows[1].layerWise);
}

TEST(SeedStatistics, TieWhenMeansDifferByAtMostOneStd) {
  EXPECT_TRUE(withinSpread(1.2, 0.2, 1.1, 0.1));   // bsp vs topk: 0.1 <= 0.2
  EXPECT_FALSE(withinSpread(1.2, 0.2, 0.9, 0.1));  // bsp vs fp16: 0.3 > 0.2
  EXPECT_FALSE(withinSpread(0.9, 0.1, 1.1, 0.1));  // fp16 vs topk: 0.2 > 0.1
  EXPECT_TRUE(withinSpread(1.0, kMissing, 1.05, 0.1));
  EXPECT_FALSE(withinSpread(1.0, kMissing, 1.0, kMissing));  // one seed each: no spread known
}

TEST(SeedStatistics, TableShowsSpreadTiesFp16ColumnsAndLabels) {
  const std::string t = markdownTables(groupRuns(readRunFolders(kSeeds)));
  // bsp: 1.2 s ± 0.2 s to target, 120 ± 20 iterations.
  EXPECT_NE(t.find("| bsp (baseline) | bsp | allreduce:ring | none | none | 0.1 | 3 | 0.8200 ± "
                   "0.0200 | 1.200 s ± 200.00 ms | 120 ± 20.0 | 1.00× | - |"),
            std::string::npos)
      << t;
  // fp16: 1.2 / 0.9 = 1.33x (0.3 apart, std 0.2: no tie); per iteration 10 / 8 ms.
  EXPECT_NE(t.find("| fp16 (fp16 baseline) | bsp | allreduce:ring | fp16 | none | 0.1 | 3 | "
                   "0.8200 ± 0.0100 | 900.00 ms ± 100.00 ms | 110 ± 10.0 | 1.33× | - | 8.00 ms | "
                   "1.25× | - |"),
            std::string::npos)
      << t;
  // topk: 1.2 / 1.1 = 1.09x, a tie; against fp16 0.9 / 1.1 = 0.82x (no tie);
  // per iteration 10 / 6 = 1.67x and 8 / 6 = 1.33x.
  EXPECT_NE(t.find("| topk | bsp | allreduce:ring | topk:0.01,ef | none | 0.05 (tuned) | 3 | "
                   "0.8100 ± 0.0100 | 1.100 s ± 100.00 ms | 110 ± 10.0 | 1.09× (tie) | 0.82× | "
                   "6.00 ms | 1.67× | 1.33× |"),
            std::string::npos)
      << t;
  // fp16-lw: layer-wise, one seed: 1.2 / 1.5 and 0.9 / 1.5; 10 / 20 and 8 / 20 ms.
  EXPECT_NE(t.find("| fp16-lw (layer-wise) | bsp | allreduce:ring | fp16 | none | 0.1 | 1 | "
                   "0.8200 | 1.500 s | 100 | 0.80× | 0.60× | 20.00 ms | 0.50× | 0.40× |"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("(layer-wise): bucket_size 0"), std::string::npos) << t;
}

TEST(SeedStatistics, CurvesAreSeedMeansWithABand) {
  const PlotSet plots = buildPlots(groupRuns(readRunFolders(kSeeds)), "pngcairo");
  bool found = false;
  for (const auto& [name, contents] : plots.data) {
    if (name != "curves-net.tsv") continue;
    found = true;
    // bsp at iteration 50: time 0.5 s on every seed, accuracy 0.49, 0.50,
    // 0.51: mean 0.5, std 0.01, band [0.49, 0.51].
    const std::string head = "# bsp: mean over 3 seeds\n";
    const size_t at = contents.find(head);
    ASSERT_NE(at, std::string::npos) << contents;
    std::istringstream line(contents.substr(at + head.size()));
    double time = 0, mib = 0, mean = 0, low = 0, high = 0;
    line >> time >> mib >> mean >> low >> high;
    EXPECT_NEAR(time, 0.5, 1e-12);
    EXPECT_NEAR(mib, 250000.0 / (1024 * 1024), 1e-12);
    EXPECT_NEAR(mean, 0.5, 1e-12);
    EXPECT_NEAR(low, 0.49, 1e-12);
    EXPECT_NEAR(high, 0.51, 1e-12);
  }
  EXPECT_TRUE(found);
  EXPECT_NE(plots.script.find("filledcurves"), std::string::npos);
  EXPECT_NE(plots.script.find("bsp (mean of 3 seeds)"), std::string::npos);
}

// fp16 reaches the target in 0.9 s on average against bsp's 1.2 s (topk
// 1.1 s; fp16-lw, an ablation, is never the winner).
TEST(ReportWinners, FastestToTargetOnEverySeedOrMostAccurate) {
  const ClusterGroup& g = net();
  EXPECT_EQ(winnersLine({g}),
            fmt::format("Winner per network: net fp16 (900.00 ms to {:.2f}, 1.33× bsp)\n",
                        g.rows[1].targetAccuracy));
  ClusterGroup missed = g;
  for (MethodRow& row : missed.rows) row.reachedTarget = row.seeds - 1;
  EXPECT_EQ(winnersLine({missed}),
            fmt::format("Winner per network: net none reached {:.2f}; most accurate bsp (0.8200)\n",
                        g.rows[1].targetAccuracy));
  EXPECT_EQ(winnersLine({}), "");
}

// The small multiples: one panel per dimension that differs from the
// baseline, the baseline (black) in each, at most 7 other methods per panel.
TEST(ReportPanels, OnePanelPerDimensionWithTheBaselineInEach) {
  const PlotSet plots = buildPlots({net()}, "pngcairo");
  EXPECT_NE(std::find(plots.images.begin(), plots.images.end(), "accuracy_panels-net.png"),
            plots.images.end());
  EXPECT_NE(std::find(plots.images.begin(), plots.images.end(), "accuracy_panels-net.svg"),
            plots.images.end());
  // fp16, fp16-lw and topk all change only the compressor: one panel.
  EXPECT_NE(plots.script.find("set multiplot layout 1,1"), std::string::npos) << plots.script;
  EXPECT_NE(plots.script.find("set title 'compress'"), std::string::npos);
  EXPECT_EQ(plots.script.find("set title 'sync'"), std::string::npos);

  // Eleven compressors and one sync policy (rows sharing the topk runs'
  // curves): sync, compress (1/2), compress (2/2).
  ClusterGroup wide = net();
  const MethodRow topk = wide.rows[3];
  wide.rows.resize(3);
  for (int i = 0; i < 11; ++i) {
    MethodRow row = topk;
    row.method = "c" + std::to_string(i);
    row.compress = "topk:0." + std::to_string(i + 1);
    wide.rows.push_back(row);
  }
  MethodRow local = topk;
  local.method = "local";
  local.sync = "local:4";
  local.compress = "none";
  wide.rows.push_back(local);
  const std::string all = buildPlots({wide}, "pngcairo").script;
  const size_t begin = all.find("# accuracy_panels-");
  ASSERT_NE(begin, std::string::npos);
  const std::string script = all.substr(begin, all.find("\n# ", begin + 1) - begin);
  EXPECT_NE(script.find("set multiplot layout 2,2"), std::string::npos);
  for (const char* title : {"'sync'", "'compress (1/2)'", "'compress (2/2)'"}) {
    EXPECT_NE(script.find(std::string("set title ") + title), std::string::npos) << title;
  }
  EXPECT_EQ(script.find("set title 'compress (3/"), std::string::npos);
  EXPECT_NE(script.find("linecolor 7 pointtype 7"), std::string::npos);
  EXPECT_EQ(script.find("linecolor 8 "), std::string::npos);  // never an 8th in a panel
  // Each of the 3 panels draws the baseline, once for PNG and once for SVG
  // (the other plots title it "bsp (mean of 3 seeds)").
  size_t baselines = 0;
  for (size_t at = script.find("title 'bsp'"); at != std::string::npos;
       at = script.find("title 'bsp'", at + 1))
    ++baselines;
  EXPECT_EQ(baselines, 2u * 3u);
}

}  // namespace
}  // namespace tetrad::experiment
