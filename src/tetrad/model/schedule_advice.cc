// The schedule line of tetrad advise (schedule_advice.h).
#include "tetrad/model/schedule_advice.h"

#include <fmt/format.h>

#include "tetrad/core/error.h"
#include "tetrad/model/method_traits.h"
#include "tetrad/model/schedule_cost.h"
#include "tetrad/sched/registry.h"

namespace tetrad::model {

ScheduleAdvice adviseSchedule(const Ranking& ranking, const ModelContext& context) {
  ScheduleAdvice advice;
  const Prediction* base = nullptr;
  for (const Prediction& p : ranking.ranked) {
    if (methodTraits(p.method).plainBsp()) {
      base = &p;
      break;
    }
  }
  if (base == nullptr) return advice;
  advice.method = base->method;
  double best = base->seconds;
  for (const PolicyInfo& info : registeredSchedulers()) {
    double seconds = 0;
    try {
      seconds = predictScheduled(base->method, info.example, context).seconds;
    } catch (const Unsupported& e) {
      advice.seconds.clear();
      advice.unsupported = e.what();
      return advice;
    }
    advice.seconds.emplace_back(info.example, seconds);
    if (seconds < best * (1 - 1e-9)) {
      best = seconds;
      advice.fastest = info.example;
    }
  }
  advice.speedup = base->seconds / best;
  return advice;
}

std::vector<std::string> formatScheduleAdvice(const Ranking& ranking, const ModelContext& context) {
  const ScheduleAdvice advice = adviseSchedule(ranking, context);
  if (!advice.unsupported.empty())
    return {fmt::format("# schedules of {}: not modelled ({})", advice.method.label(),
                        advice.unsupported)};
  if (advice.seconds.empty()) return {};
  std::string list;
  for (const auto& [spec, seconds] : advice.seconds)
    list += fmt::format("{}{} {:.3f} ms", list.empty() ? "" : ", ", spec, seconds * 1e3);
  return {
      fmt::format("# schedules of {}, time per iteration (pipeline model, "
                  "docs/scheduling.md): {}; fastest --sched {} ({:.2f}x of none)",
                  advice.method.label(), list, advice.fastest, advice.speedup)};
}

}  // namespace tetrad::model
