// The scheduler registry (see registry.h): one table line per policy.
#include "tetrad/sched/registry.h"

#include "tetrad/core/error.h"
#include "tetrad/sched/after_backward.h"
#include "tetrad/sched/ddp_buckets.h"
#include "tetrad/sched/fusion.h"
#include "tetrad/sched/mgwfbp.h"
#include "tetrad/sched/planned_scheduler.h"
#include "tetrad/sched/priority.h"
#include "tetrad/sched/wfbp.h"

namespace tetrad {
namespace {

using Factory = SchedulerPtr (*)(const SpecParams&);

struct Entry {
  PolicyInfo info;
  const char* form;              // spec form, for messages and help
  sched::PlanParser planParser;  // the offline plan (plan_spec.h)
  Factory make;                  // the run-time scheduler
};

SchedulerPtr makePlanned(const SpecParams& params) {
  return makePlannedScheduler(params.spec);
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {{"none", "none", "exchange every bucket after the backward pass"},
       "none",
       sched::nonePlanOf,
       makeAfterBackward},
      {{"wfbp", "wfbp", "wait-free backprop: every tensor leaves as soon as its gradient is ready"},
       "wfbp",
       sched::wfbpPlanOf,
       makePlanned},
      {{"fusion", "fusion:25MiB",
        "ready tensors fused into buckets of up to BYTES (DDP: small first bucket, :FIRST)"},
       "fusion[:BYTES[:FIRST]]",
       sched::fusionPlanOf,
       makePlanned},
      {{"ddp", "ddp",
        "PyTorch DDP's buckets: a bucket closes once it reaches CAP (the first: FIRST), so it "
        "overshoots by at most one tensor"},
       "ddp[:CAP[:FIRST]]",
       sched::ddpPlanOf,
       makePlanned},
      {{"mgwfbp", "mgwfbp",
        "merged-gradient WFBP: merge layers when the start-up saved exceeds the overlap lost "
        "(:greedy, or :optimal)"},
       "mgwfbp[:greedy|optimal]",
       sched::mgwfbpPlanOf,
       makePlanned},
      {{"priority", "priority:4MiB",
        "tensors cut into PART-byte chunks, front layers first; the next forward starts per stage"},
       "priority[:PART]",
       sched::priorityPlanOf,
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

namespace sched {

PlanParser findPlanParser(std::string_view name) {
  for (const Entry& entry : table()) {
    if (entry.info.name == name) return entry.planParser;
  }
  return nullptr;
}

std::vector<std::string> schedulePlanForms() {
  std::vector<std::string> forms;
  for (const Entry& entry : table()) forms.emplace_back(entry.form);
  return forms;
}

}  // namespace sched
}  // namespace tetrad
