// Scheduler: *how* communication meets computation — the "sched" dimension
// of the taxonomy: none, wfbp, fusion:BYTES, mgwfbp, priority:PART.
//
// A scheduler decides the units that travel as one message each (buckets of
// whole tensors, or chunks of one tensor) and their order on the one
// communication channel of a rank — a pure plan over the parameter slots,
// their backward times and the cost of a message (sched/bucket_plan.h) —
// and when they may leave:
//   none       every bucket (fused to --bucket-size) after the whole backward
//              pass, in parameter order;
//   others     each unit as soon as its last gradient is ready, while the
//              backward pass goes on (overlapsBackward()); priority also lets
//              the next forward pass start a stage as soon as that stage's
//              update is in (gatesForward()).
// Every rank computes the same plan from the same inputs, so every rank
// sends the same units in the same order (no negotiation round).
//
// Created from a spec string by sched/registry.h. Thread-safety: immutable
// after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tetrad/sched/bucketing.h"
#include "tetrad/sched/comm_cost.h"

namespace tetrad {

// What a plan is computed from. Gradients become ready in reverse parameter
// order (the last layer's first), as autograd produces them and as PyTorch
// DDP assumes.
struct ScheduleInputs {
  std::vector<ParameterSlot> slots;  // parameter order
  std::vector<int> slotStage;        // forward stage of each parameter (front = 0)
  // Seconds of backward pass before each parameter's gradient is ready,
  // counted from the previous one in ready order (parameter order here);
  // zeros when unknown.
  std::vector<double> backwardSeconds;
  uint64_t bucketBytes = 0;             // --bucket-size (none)
  std::optional<sched::CommCost> cost;  // one message of b bytes (mgwfbp, priority)
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string spec() const = 0;
  // The units, in the order they are sent. Each is a range of the flat
  // buffers (a BucketRange; a chunk has no shape).
  virtual std::vector<BucketRange> plan(const ScheduleInputs& inputs) const = 0;
  // True when units leave during the backward pass; false: after it.
  virtual bool overlapsBackward() const { return false; }
  // True when the next forward pass waits per stage (priority); false: for
  // every update.
  virtual bool gatesForward() const { return false; }
  // True when plan() reads backwardSeconds and cost.
  virtual bool needsCost() const { return false; }
};

using SchedulerPtr = std::unique_ptr<Scheduler>;

}  // namespace tetrad
