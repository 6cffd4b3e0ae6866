// The survey layout (experiment/report_survey.h) and its bootstrap intervals
// (experiment/bootstrap.h), on the three-seed fixture sweep and on values
// whose interval is known.
#include "tetrad/experiment/report_survey.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "tetrad/core/error.h"
#include "tetrad/experiment/bootstrap.h"
#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {
namespace {

namespace fs = std::filesystem;

const std::string kSeeds = std::string(TETRAD_EXPERIMENT_FIXTURES) + "/seeds";

TEST(Bootstrap, IntervalsBracketTheRatioAndShrinkWithTheSpread) {
  const std::vector<double> base = {1.0, 1.2, 1.4};
  const std::vector<double> same = {1.0, 1.2, 1.4};
  const Interval tie = ratioOfMeansInterval(base, same);
  ASSERT_FALSE(tie.missing());
  EXPECT_LT(tie.low, 1.0);
  EXPECT_GT(tie.high, 1.0);
  // Twice as fast on every seed, with no spread of its own: the ratio's
  // interval is base's resampled mean / 0.6, inside [1.0, 1.4] / 0.6.
  const std::vector<double> twice = {0.6, 0.6, 0.6};
  const Interval win = ratioOfMeansInterval(base, twice);
  EXPECT_GE(win.low, 1.0 / 0.6 - 1e-12);
  EXPECT_LE(win.high, 1.4 / 0.6 + 1e-12);
  EXPECT_GT(win.low, 1.0);
  EXPECT_TRUE(win.excludes(Interval{0.9, 1.1}));
  EXPECT_FALSE(tie.excludes(Interval{0.9, 1.1}));
  // Seeded: the same interval every time.
  const Interval again = ratioOfMeansInterval(base, twice);
  EXPECT_EQ(again.low, win.low);
  EXPECT_EQ(again.high, win.high);
  // One seed on a side, or a value that is not a positive time: no interval.
  EXPECT_TRUE(ratioOfMeansInterval(base, std::vector<double>{0.6}).missing());
  EXPECT_TRUE(ratioOfMeansInterval(base, std::vector<double>{0.6, NAN}).missing());
}

TEST(SurveyLayout, PrintsSeedMeansIntervalsBothBaselinesAndAVerdict) {
  const std::string text = surveyReport(kSeeds);
  // bsp: 1.0, 1.2, 1.4 s; topk: 1.0, 1.1, 1.2 s (seeds_report_test.cc).
  EXPECT_NE(text.find("| bsp (baseline) | "), std::string::npos) << text;
  EXPECT_NE(text.find("(fp16 baseline)"), std::string::npos) << text;
  EXPECT_NE(text.find("| 1.00× |"), std::string::npos) << text;
  EXPECT_NE(text.find("1.09× ["), std::string::npos) << text;  // 1.2 / 1.1
  // fp16 0.8, 0.9, 1.0 s against topk's: its interval over seeds excludes a tie;
  // topk against bsp does not ([0.91, 1.29] holds 1).
  EXPECT_NE(text.find("Fastest to the target: fp16 (900.00 ms), 1.22× ahead of topk (95% "
                      "interval [1.07, 1.40]: a win)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1.09× [0.91, 1.29]"), std::string::npos) << text;
  // Convergence to the end: crossings interpolated between evaluations
  // (topk's seeds cross 75% at 0.927, 0.873 and 0.818 s between their
  // evaluations at 0.6 and 1.2 s), and a near-final target of BSP's final
  // mean (0.82) minus one point, which one of BSP's own seeds never reaches.
  EXPECT_NE(text.find("near-final target 81.00%"), std::string::npos) << text;
  EXPECT_NE(text.find("| topk | 0.8100 ± 0.0100 | 872.73 ms ± 54.55 ms | 1.63× ["),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1.843 s ± 104.25 ms (2/3 seeds)"), std::string::npos) << text;
  EXPECT_NE(text.find("Fastest to 81.00%: fp16 (1.533 s), the only method to reach it."),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("| fp16-lw"), text.rfind("| fp16-lw")) << "the ablation is left out";
}

TEST(SurveyLayout, MapTableShowsEachCellsWinnerAndRefusesAForeignFile) {
  const fs::path dir = fs::temp_directory_path() / "tetrad-survey-map";
  fs::create_directories(dir);
  const std::string path = (dir / "map.csv").string();
  std::ofstream(path)
      << "bandwidth_bps,latency_s,workers,cluster,method,time_to_target,time_std,seeds,source,"
         "winner,r\n"
         "1e+09,2.5e-05,8,\"sim:8x1Gbps,25us\",bsp,2.0,,1,retimed,0,3.1\n"
         "1e+09,2.5e-05,8,\"sim:8x1Gbps,25us\",topk,1.0,,1,retimed,1,3.1\n"
         "1e+10,2.5e-05,8,\"sim:8x10Gbps,25us\",bsp,1.0,,1,retimed,1,\n";
  const std::string table = surveyMapTable(path);
  EXPECT_NE(table.find("| latency \\ bandwidth | 1 Gb/s | 10 Gb/s |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 25 µs | topk (R 3.1) | bsp |"), std::string::npos) << table;
  EXPECT_EQ(surveyMapTable((dir / "absent.csv").string()), "");
  // A compute axis (map.csv's compute_scale): a row per scale and latency.
  std::ofstream(path)
      << "bandwidth_bps,latency_s,workers,cluster,method,time_to_target,time_std,seeds,source,"
         "winner,r,compute_scale\n"
         "1e+09,2.5e-05,8,\"sim:8x1Gbps,25us\",topk,1.0,,1,retimed,1,31,0.1\n"
         "1e+09,2.5e-05,8,\"sim:8x1Gbps,25us\",bsp,1.0,,1,retimed,1,0.31,10\n";
  const std::string scaled = surveyMapTable(path);
  EXPECT_NE(scaled.find("| 25 µs, compute ×0.1 | topk (R 31) |"), std::string::npos) << scaled;
  EXPECT_NE(scaled.find("| 25 µs, compute ×10 | bsp (R 0.31) |"), std::string::npos) << scaled;
  std::ofstream(path) << "method,time\nbsp,1\n";
  try {
    surveyMapTable(path);
    FAIL() << "a foreign csv was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("not a method map's map.csv"), std::string::npos);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tetrad::experiment
