// Schedule plan specs: what parses, what is refused and how the refusal reads.
#include "tetrad/sched/plan_spec.h"

#include <gtest/gtest.h>

#include "tetrad/core/error.h"

namespace tetrad::sched {
namespace {

const std::vector<TensorSlot> kSlots = {{4096, 1e-3, 1}, {8192, 1e-3, 0}};
const CommCost kCost = ringAllreduceCommCost(4, 25e-6, 8e-10);

// The message of the InvalidArgument thrown by parsing `text`.
std::string refusal(const std::string& text) {
  try {
    parseSchedulePlanSpec(text);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "'" << text << "' was accepted";
  return "";
}

TEST(PlanSpec, ParsesEveryForm) {
  EXPECT_EQ(parseSchedulePlanSpec("wfbp").plan(kSlots, kCost).buckets.size(), 2u);
  EXPECT_EQ(parseSchedulePlanSpec("none").plan(kSlots, kCost).buckets.size(), 1u);
  EXPECT_EQ(parseSchedulePlanSpec("fusion:4KiB").plan(kSlots, kCost).buckets.size(), 2u);
  EXPECT_EQ(parseSchedulePlanSpec("fusion:1MB:16K").plan(kSlots, kCost).buckets.size(), 1u);
  EXPECT_EQ(parseSchedulePlanSpec("mgwfbp:optimal").plan(kSlots, kCost).name, "mgwfbp:optimal");
  const SchedulePlanSpec priority = parseSchedulePlanSpec("priority:2048");
  EXPECT_EQ(priority.name, "priority");
  EXPECT_EQ(priority.params, (std::vector<std::string>{"2048"}));
  EXPECT_EQ(priority.plan(kSlots, kCost).chunks.size(), 6u);
  EXPECT_EQ(parseSchedulePlanSpec("priority").plan(kSlots, kCost).chunks.size(), 2u);
}

TEST(PlanSpec, RefusesBadParametersWithOneLineNamingTheRule) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"fusion:0", "invalid schedule 'fusion:0': bucket size must be > 0 bytes"},
      {"fusion:-4MB", "invalid schedule 'fusion:-4MB': bucket size must be > 0 bytes"},
      {"fusion:4MB:0", "first bucket size must be > 0 bytes"},
      {"fusion:lots", "bucket size must be > 0 bytes (e.g. 25MiB), got 'lots'"},
      {"priority:0", "invalid schedule 'priority:0': partition size must be at least 4 bytes"},
      {"priority:-1", "invalid schedule 'priority:-1': partition size must be at least 4 bytes"},
      {"priority:2", "partition size must be at least 4 bytes"},
      {"priority:1MB:2", "'priority' takes at most 1 parameter(s), got 2"},
      {"wfbp:1", "'wfbp' takes at most 0 parameter(s), got 1"},
      {"mgwfbp:best", "merge rule must be 'greedy' or 'optimal', got 'best'"},
      {"fusion:", "invalid schedule 'fusion:': empty parameter"},
      {"bytescheduler", "unknown schedule 'bytescheduler' (known: none, wfbp,"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = refusal(text);
    EXPECT_NE(message.find(expected), std::string::npos)
        << "'" << text << "' refused with: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(PlanSpec, KnownFormsAllParse) {
  for (const std::string& form : knownSchedulePlanSpecs()) {
    const std::string name = form.substr(0, form.find('['));
    EXPECT_NO_THROW(parseSchedulePlanSpec(name)) << form;
  }
}

}  // namespace
}  // namespace tetrad::sched
