// Scheduler registry: the one table of schedule policies (none, wfbp,
// fusion, mgwfbp, priority), in the shape of core/registry.h. Each line
// holds the policy's name and example, its spec form for messages, the
// parser of its offline plan (`fooPlanOf` in the policy's own file; used by
// sched/plan_spec.h) and the factory of its run-time Scheduler
// (sched/scheduler.h). A new policy is its own .h/.cc pair plus one line
// here; nothing else names it.
//
// Thread-safe (immutable tables).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/core/registry.h"
#include "tetrad/sched/plan_spec.h"
#include "tetrad/sched/scheduler.h"

namespace tetrad {

SchedulerPtr makeScheduler(std::string_view spec);
std::vector<PolicyInfo> registeredSchedulers();
std::string knownSchedulers();

namespace sched {

// The plan parser of a policy: checks spec.params and returns the pure plan
// function (sched/plan_spec.h).
using PlanParser = PlanFunction (*)(const SchedulePlanSpec& spec);
// The parser registered for `name`, or null.
PlanParser findPlanParser(std::string_view name);
// Every policy's spec form ("fusion[:BYTES[:FIRST]]"), in table order.
std::vector<std::string> schedulePlanForms();

}  // namespace sched
}  // namespace tetrad
