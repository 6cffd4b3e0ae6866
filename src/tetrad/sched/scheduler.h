// Scheduler: *how* communication meets computation — the "sched" dimension
// of the taxonomy (none today; wfbp, fusion, mgwfbp and priority plug in
// here).
//
// A scheduler decides the buckets (a pure plan over the parameter slots,
// sched/bucketing.h) and when each bucket is exchanged relative to the
// backward pass. `none` exchanges every bucket after the whole backward pass,
// in bucket order.
//
// Created from a spec string by sched/registry.h. Thread-safety: immutable
// after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tetrad/sched/bucketing.h"

namespace tetrad {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string spec() const = 0;
  // The buckets for parameters `slots` (parameter order), given the run's
  // --bucket-size cap.
  virtual std::vector<BucketRange> plan(std::span<const ParameterSlot> slots,
                                        uint64_t bucketBytes) const = 0;
  // True when buckets leave during the backward pass (needs gradient-ready
  // events); false: after it.
  virtual bool overlapsBackward() const { return false; }
};

using SchedulerPtr = std::unique_ptr<Scheduler>;

}  // namespace tetrad
