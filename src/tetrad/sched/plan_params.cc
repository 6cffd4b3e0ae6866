// Plan-parser helpers (plan_params.h).
#include "tetrad/sched/plan_params.h"

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad::sched {

void failPlanSpec(const SchedulePlanSpec& spec, std::string_view rule) {
  TETRAD_FAIL(InvalidArgument, "invalid schedule '{}': {}", spec.text, rule);
}

void expectPlanParams(const SchedulePlanSpec& spec, size_t max) {
  if (spec.params.size() > max) {
    failPlanSpec(spec, fmt::format("'{}' takes at most {} parameter(s), got {}", spec.name, max,
                                   spec.params.size()));
  }
}

uint64_t planBytesParam(const SchedulePlanSpec& spec, size_t index, uint64_t fallback,
                        uint64_t minBytes, std::string_view rule) {
  if (index >= spec.params.size()) return fallback;
  uint64_t bytes = 0;
  try {
    bytes = parseBytes(spec.params[index]);
  } catch (const InvalidArgument&) {
    failPlanSpec(spec, fmt::format("{}, got '{}'", rule, spec.params[index]));
  }
  if (bytes < minBytes) failPlanSpec(spec, fmt::format("{}, got '{}'", rule, spec.params[index]));
  return bytes;
}

}  // namespace tetrad::sched
