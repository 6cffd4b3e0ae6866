// The scheduler registry (see registry.h): one table line per policy.
#include "tetrad/sched/registry.h"

#include "tetrad/core/error.h"
#include "tetrad/sched/after_backward.h"

namespace tetrad {
namespace {

using Factory = SchedulerPtr (*)(const SpecParams&);
using Entry = RegistryEntry<Factory>;

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {{"none", "none", "exchange every bucket after the backward pass"}, makeAfterBackward},
  };
  return entries;
}

// Policies of the survey that are planned but not built yet: refused with
// Unsupported, never replaced by another policy.
bool isPlanned(const std::string& name) {
  return name == "wfbp" || name == "fusion" || name == "mgwfbp" || name == "priority";
}

}  // namespace

SchedulerPtr makeScheduler(std::string_view spec) {
  SpecParams params = parseSpec(spec, "--sched");
  TETRAD_CHECK(!isPlanned(params.name), Unsupported,
               "--sched {} is not yet supported: only none (exchange after the backward pass) is "
               "implemented",
               spec);
  return lookupEntry(table(), params).make(params);
}

std::vector<PolicyInfo> registeredSchedulers() {
  return policyInfos(table());
}

std::string knownSchedulers() {
  return knownSpecs(table());
}

}  // namespace tetrad
