// The schedule line of `tetrad advise`: which --sched to run the ranking's
// fastest uncompressed BSP all-reduce with.
//
// The method is the first of Ranking::ranked with sync bsp, an allreduce:
// arch and no compression (the methods schedule_cost.h covers); each
// registered schedule (sched/registry.h) is priced at its example spec
// (none, wfbp, fusion:25MiB, ddp, mgwfbp, priority:4MiB) by
// predictScheduled(), and the line names the fastest and its ratio to none.
// A tie with none (within 1e-9) keeps none. Where the cost model does not
// cover the workload (no layer table: --params, a model file), the line
// says so instead.
//
// Pure function of its inputs; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/model/advisor.h"
#include "tetrad/model/method_cost.h"

namespace tetrad::model {

struct ScheduleAdvice {
  Method method;  // the method priced
  // Every registered schedule's example spec and time per iteration, in
  // registration order ("none" first).
  std::vector<std::pair<std::string, double>> seconds;
  std::string fastest = "none";
  double speedup = 1;       // none's time / the fastest's
  std::string unsupported;  // non-empty: why no schedule was priced
};

// Empty `seconds` and `unsupported` when the ranking has no such method.
ScheduleAdvice adviseSchedule(const Ranking& ranking, const ModelContext& context);

// The advice as `tetrad advise` prints it: zero or one "# schedules ..." line.
std::vector<std::string> formatScheduleAdvice(const Ranking& ranking, const ModelContext& context);

}  // namespace tetrad::model
