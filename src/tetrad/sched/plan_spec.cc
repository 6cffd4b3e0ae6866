// Parsing of schedule plan specs (plan_spec.h).
#include "tetrad/sched/plan_spec.h"

#include "tetrad/core/error.h"
#include "tetrad/sched/plan_params.h"
#include "tetrad/sched/registry.h"

namespace tetrad::sched {
namespace {

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = text.find(':', start);
    parts.emplace_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

}  // namespace

SchedulePlanSpec parseSchedulePlanSpec(std::string_view text) {
  SchedulePlanSpec spec;
  spec.text = std::string(text);
  std::vector<std::string> parts = split(text);
  spec.name = parts.front();
  spec.params.assign(parts.begin() + 1, parts.end());
  for (const std::string& param : spec.params) {
    if (param.empty()) failPlanSpec(spec, "empty parameter");
  }
  // The policy's own parser, from the one scheduler table (registry.h).
  const PlanParser parser = findPlanParser(spec.name);
  if (parser == nullptr) {
    std::string known;
    for (const std::string& form : knownSchedulePlanSpecs()) {
      known += (known.empty() ? "" : ", ") + form;
    }
    TETRAD_FAIL(InvalidArgument, "unknown schedule '{}' (known: {})", spec.text, known);
  }
  spec.plan = parser(spec);
  // Plans carry the spec as given ("fusion:4MB"), for tables and messages.
  spec.plan = [inner = std::move(spec.plan), text = spec.text](std::span<const TensorSlot> slots,
                                                               const CommCost& cost) {
    SchedulePlan plan = inner(slots, cost);
    plan.name = text;
    return plan;
  };
  return spec;
}

std::vector<std::string> knownSchedulePlanSpecs() {
  return schedulePlanForms();
}

}  // namespace tetrad::sched
