// The scheduler registry (see registry.h): one table line per policy.
#include "tetrad/sched/registry.h"

#include "tetrad/core/error.h"
#include "tetrad/sched/after_backward.h"
#include "tetrad/sched/planned_scheduler.h"

namespace tetrad {
namespace {

using Factory = SchedulerPtr (*)(const SpecParams&);
using Entry = RegistryEntry<Factory>;

SchedulerPtr makePlanned(const SpecParams& params) {
  return makePlannedScheduler(params.spec);
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {{"none", "none", "exchange every bucket after the backward pass"}, makeAfterBackward},
      {{"wfbp", "wfbp", "wait-free backprop: every tensor leaves as soon as its gradient is ready"},
       makePlanned},
      {{"fusion", "fusion:25MiB",
        "ready tensors fused into buckets of up to BYTES (DDP: small first bucket, :FIRST)"},
       makePlanned},
      {{"mgwfbp", "mgwfbp",
        "merged-gradient WFBP: merge layers when the start-up saved exceeds the overlap lost "
        "(:greedy, or :optimal)"},
       makePlanned},
      {{"priority", "priority:4MiB",
        "tensors cut into PART-byte chunks, front layers first; the next forward starts per stage"},
       makePlanned},
  };
  return entries;
}

}  // namespace

SchedulerPtr makeScheduler(std::string_view spec) {
  SpecParams params = parseSpec(spec, "--sched");
  return lookupEntry(table(), params).make(params);
}

std::vector<PolicyInfo> registeredSchedulers() {
  return policyInfos(table());
}

std::string knownSchedulers() {
  return knownSpecs(table());
}

}  // namespace tetrad
