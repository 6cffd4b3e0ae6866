// Helpers for the plan parsers of the schedule policies (`fooPlanOf` in each
// policy's own file, listed in sched/registry.cc): one-line refusals naming
// the spec and the rule, parameter counts and byte sizes.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "tetrad/sched/plan_spec.h"

namespace tetrad::sched {

// Throws InvalidArgument "invalid schedule 'TEXT': RULE".
[[noreturn]] void failPlanSpec(const SchedulePlanSpec& spec, std::string_view rule);
// Refuses more than `max` parameters.
void expectPlanParams(const SchedulePlanSpec& spec, size_t max);
// params[index] as a byte count >= minBytes (core/units.h), `fallback` when
// absent; `rule` is the refusal's text.
uint64_t planBytesParam(const SchedulePlanSpec& spec, size_t index, uint64_t fallback,
                        uint64_t minBytes, std::string_view rule);

}  // namespace tetrad::sched
