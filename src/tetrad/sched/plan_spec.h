// Schedule plan specs: "NAME[:PARAM...]" text → a plan function.
//
//   none                       one bucket of every tensor, sent after the backward
//   wfbp                       one bucket per tensor, in ready order (wfbp.h)
//   fusion[:BYTES[:FIRST]]     buckets of at most BYTES (default 25 MiB), the first
//                              at most min(BYTES, FIRST) (default 1 MiB) (fusion.h)
//   ddp[:CAP[:FIRST]]          PyTorch DDP's buckets: one closes once it reaches CAP
//                              (default 25 MiB; the first FIRST, 1 MiB) (ddp_buckets.h)
//   mgwfbp[:greedy|optimal]    MG-WFBP merges: the paper's greedy rule (default)
//                              or the exact DP optimum (mgwfbp.h)
//   priority[:PART]            chunks of at most PART bytes (default 1 MiB),
//                              front layer first (priority.h)
//
// Sizes take the units of core/units.h (4MB, 25MiB, 1048576). A bad spec is
// refused with InvalidArgument, one line naming the spec and the rule, e.g.
//   invalid schedule 'fusion:0': bucket size must be > 0 bytes
// Each policy parses its own parameters (`fooPlanOf` in its file, listed in
// the one scheduler table, sched/registry.cc). The registry keeps `plan`; the
// plan function is pure (slots and the cluster's CommCost in, plan out) and
// may be called from any thread.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/comm_cost.h"

namespace tetrad::sched {

using PlanFunction =
    std::function<SchedulePlan(std::span<const TensorSlot> slots, const CommCost& cost)>;

struct SchedulePlanSpec {
  std::string text;                 // as given: "fusion:4MB"
  std::string name;                 // "fusion"
  std::vector<std::string> params;  // {"4MB"}
  PlanFunction plan;
};

// Throws InvalidArgument on an unknown name, a wrong number of parameters or
// a bad value.
SchedulePlanSpec parseSchedulePlanSpec(std::string_view text);

// One line per spec form, for help texts and "known: ..." lists.
std::vector<std::string> knownSchedulePlanSpecs();

}  // namespace tetrad::sched
