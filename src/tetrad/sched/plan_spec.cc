// Parsing of schedule plan specs (plan_spec.h).
#include "tetrad/sched/plan_spec.h"

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/sched/fusion.h"
#include "tetrad/sched/mgwfbp.h"
#include "tetrad/sched/priority.h"
#include "tetrad/sched/wfbp.h"

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

[[noreturn]] void fail(const SchedulePlanSpec& spec, std::string_view rule) {
  TETRAD_FAIL(InvalidArgument, "invalid schedule '{}': {}", spec.text, rule);
}

void expectParams(const SchedulePlanSpec& spec, size_t max) {
  if (spec.params.size() > max) {
    fail(spec, fmt::format("'{}' takes at most {} parameter(s), got {}", spec.name, max,
                           spec.params.size()));
  }
}

// params[index] as a byte count >= minBytes; `rule` is the message when not.
uint64_t bytesParam(const SchedulePlanSpec& spec, size_t index, uint64_t fallback,
                    uint64_t minBytes, std::string_view rule) {
  if (index >= spec.params.size()) return fallback;
  uint64_t bytes = 0;
  try {
    bytes = parseBytes(spec.params[index]);
  } catch (const InvalidArgument&) {
    fail(spec, fmt::format("{}, got '{}'", rule, spec.params[index]));
  }
  if (bytes < minBytes) fail(spec, fmt::format("{}, got '{}'", rule, spec.params[index]));
  return bytes;
}

SchedulePlan nonePlan(std::span<const TensorSlot> slots) {
  checkSlots(slots);
  SchedulePlan plan;
  plan.name = "none";
  plan.afterBackward = true;
  plan.buckets.push_back({0, slots.size(), slotBytes(slots, 0, slots.size())});
  return plan;
}

}  // namespace

SchedulePlanSpec parseSchedulePlanSpec(std::string_view text) {
  SchedulePlanSpec spec;
  spec.text = std::string(text);
  std::vector<std::string> parts = split(text);
  spec.name = parts.front();
  spec.params.assign(parts.begin() + 1, parts.end());
  for (const std::string& param : spec.params) {
    if (param.empty()) fail(spec, "empty parameter");
  }
  if (spec.name == "none" || spec.name == "wfbp") {
    expectParams(spec, 0);
    if (spec.name == "none") {
      spec.plan = [](std::span<const TensorSlot> slots, const CommCost&) {
        return nonePlan(slots);
      };
    } else {
      spec.plan = [](std::span<const TensorSlot> slots, const CommCost&) {
        return wfbpPlan(slots);
      };
    }
  } else if (spec.name == "fusion") {
    expectParams(spec, 2);
    const uint64_t cap =
        bytesParam(spec, 0, kDdpBucketBytes, 1, "bucket size must be > 0 bytes (e.g. 25MiB)");
    const uint64_t first = bytesParam(spec, 1, kDdpFirstBucketBytes, 1,
                                      "first bucket size must be > 0 bytes (e.g. 1MiB)");
    spec.plan = [cap, first](std::span<const TensorSlot> slots, const CommCost&) {
      return fusionPlan(slots, cap, first);
    };
  } else if (spec.name == "mgwfbp") {
    expectParams(spec, 1);
    const std::string method = spec.params.empty() ? "greedy" : spec.params[0];
    if (method == "greedy") {
      spec.plan = [](std::span<const TensorSlot> slots, const CommCost& cost) {
        return mgwfbpGreedyPlan(slots, cost);
      };
    } else if (method == "optimal") {
      spec.plan = [](std::span<const TensorSlot> slots, const CommCost& cost) {
        return mgwfbpOptimalPlan(slots, cost);
      };
    } else {
      fail(spec, fmt::format("merge rule must be 'greedy' or 'optimal', got '{}'", method));
    }
  } else if (spec.name == "priority") {
    expectParams(spec, 1);
    const uint64_t part = bytesParam(spec, 0, kDefaultPartitionBytes, sizeof(float),
                                     "partition size must be at least 4 bytes (e.g. 1MiB)");
    spec.plan = [part](std::span<const TensorSlot> slots, const CommCost&) {
      return partitionPlan(slots, part);
    };
  } else {
    std::string known;
    for (const std::string& form : knownSchedulePlanSpecs()) {
      known += (known.empty() ? "" : ", ") + form;
    }
    TETRAD_FAIL(InvalidArgument, "unknown schedule '{}' (known: {})", spec.text, known);
  }
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
  return {"none", "wfbp", "fusion[:BYTES[:FIRST]]", "mgwfbp[:greedy|optimal]", "priority[:PART]"};
}

}  // namespace tetrad::sched
