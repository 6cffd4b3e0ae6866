// Scheduler registry: spec string -> Scheduler (sched/scheduler.h), in the
// table shape of core/registry.h: none, wfbp, fusion, mgwfbp, priority.
//
// Thread-safe (immutable tables).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/core/registry.h"
#include "tetrad/sched/scheduler.h"

namespace tetrad {

SchedulerPtr makeScheduler(std::string_view spec);
std::vector<PolicyInfo> registeredSchedulers();
std::string knownSchedulers();

}  // namespace tetrad
