// The cells of the report's tables (report_table.h, report_survey.h): one
// MethodRow field formatted as the tables print it, "-" where the value is
// missing. Shared by the full report and its survey layout so that both
// print a number the same way.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "tetrad/experiment/run_groups.h"

namespace tetrad::experiment::cells {

inline constexpr const char* kNone = "-";

// `text`, or "-" when `value` is NaN.
std::string orDash(double value, const std::string& text);
// A duration ("1.23 s", "45.6 ms"), or "-".
std::string seconds(double value);
// Final accuracy, mean ± sample std over seeds.
std::string accuracy(const MethodRow& row);
// Time to target, mean ± std over the seeds that reached it, "(k/n seeds)"
// when not all did, "not reached" when none did.
std::string toTarget(const MethodRow& row);
std::string itersToTarget(const MethodRow& row);
// The lr, "(tuned)" when picked from a grid.
std::string learningRate(const MethodRow& row);
// Every seed reached the target.
bool reachedByAll(const MethodRow& row);
// `part`'s share of compute + codec + communication per iteration.
std::string share(const MethodRow& row, double part);
// The method with its marks: (baseline), (fp16 baseline), (layer-wise), ¹ retimed.
std::string labelOf(const MethodRow& row);

}  // namespace tetrad::experiment::cells
