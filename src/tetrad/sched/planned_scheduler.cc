// Cost per iteration (α–β, one channel): the pipeline of sched/
// pipeline_cost.h — unit j starts at max(its last gradient ready, unit j−1
// done) and lasts cost(b_j); the iteration takes F + max(B, last unit done)
// (priority: the next forward's stage l starts once stage l's update is in).
#include "tetrad/sched/planned_scheduler.h"

#include <algorithm>

#include "tetrad/core/error.h"
#include "tetrad/sched/priority.h"

namespace tetrad {
namespace {

// The offset of each parameter in the flat buffer (floats).
std::vector<size_t> offsetsOf(std::span<const ParameterSlot> slots) {
  std::vector<size_t> offsets;
  size_t offset = 0;
  for (const ParameterSlot& slot : slots) {
    offsets.push_back(offset);
    offset += slot.count;
  }
  return offsets;
}

// A slot's shape as a bucket lists it (a flat vector when it has none).
std::vector<int64_t> shapeOf(const ParameterSlot& slot) {
  return slot.shape.empty() ? std::vector<int64_t>{int64_t(slot.count)} : slot.shape;
}

class PlannedScheduler final : public Scheduler {
 public:
  explicit PlannedScheduler(sched::SchedulePlanSpec spec) : spec_(std::move(spec)) {}

  std::string spec() const override { return spec_.text; }
  bool overlapsBackward() const override { return true; }
  bool gatesForward() const override { return spec_.name == "priority"; }
  bool needsCost() const override { return spec_.name == "mgwfbp" || spec_.name == "priority"; }

  std::vector<BucketRange> plan(const ScheduleInputs& inputs) const override {
    const std::vector<sched::TensorSlot> ready = readyOrderSlots(inputs);
    TETRAD_CHECK(!needsCost() || inputs.cost.has_value(), InvalidArgument,
                 "--sched {} needs the cost of a message on this cluster", spec_.text);
    const sched::CommCost cost =
        inputs.cost ? *inputs.cost : sched::CommCost("unused", [](uint64_t) { return 0.0; });
    const sched::SchedulePlan plan = spec_.plan(ready, cost);
    sched::checkPlan(ready, plan);
    const std::vector<size_t> offsets = offsetsOf(inputs.slots);
    const size_t n = inputs.slots.size();
    std::vector<BucketRange> units;
    if (plan.order == sched::SendOrder::kPlanOrder) {
      for (const sched::Bucket& bucket : plan.buckets) {
        // Ready slots [first, first + count) are parameters
        // [n − first − count, n − first).
        const size_t low = n - bucket.first - bucket.count, high = n - bucket.first;
        BucketRange range;
        range.offset = offsets[low];
        range.count = size_t(bucket.bytes / sizeof(float));
        if (bucket.count == 1) range.shape = inputs.slots[low].shape;
        for (size_t p = low; p < high; ++p) {
          range.names += (range.names.empty() ? "" : ",") + inputs.slots[p].name;
          range.tensorShapes.push_back(shapeOf(inputs.slots[p]));
        }
        units.push_back(std::move(range));
      }
      return units;
    }
    for (const sched::MessageTiming& message : sched::prioritySendOrder(ready, plan, cost)) {
      const sched::Chunk& chunk = plan.chunks[message.unit];
      const size_t parameter = n - 1 - chunk.slot;
      BucketRange range;
      range.offset = offsets[parameter] + size_t(chunk.offset / sizeof(float));
      range.count = size_t(chunk.bytes / sizeof(float));
      if (range.count == inputs.slots[parameter].count) {
        range.shape = inputs.slots[parameter].shape;
        range.tensorShapes.push_back(shapeOf(inputs.slots[parameter]));
      }
      range.names = inputs.slots[parameter].name;
      units.push_back(std::move(range));
    }
    return units;
  }

 private:
  sched::SchedulePlanSpec spec_;
};

}  // namespace

std::vector<sched::TensorSlot> readyOrderSlots(const ScheduleInputs& inputs) {
  const size_t n = inputs.slots.size();
  TETRAD_CHECK(inputs.slotStage.size() == n, InvalidArgument,
               "schedule inputs: {} parameters but {} stages", n, inputs.slotStage.size());
  TETRAD_CHECK(inputs.backwardSeconds.empty() || inputs.backwardSeconds.size() == n,
               InvalidArgument, "schedule inputs: {} parameters but {} backward times", n,
               inputs.backwardSeconds.size());
  std::vector<sched::TensorSlot> ready;
  for (size_t i = n; i-- > 0;) {
    sched::TensorSlot slot;
    slot.bytes = uint64_t(inputs.slots[i].count) * sizeof(float);
    slot.backwardSeconds = inputs.backwardSeconds.empty() ? 0.0 : inputs.backwardSeconds[i];
    slot.layer = inputs.slotStage[i];
    ready.push_back(slot);
  }
  return ready;
}

SchedulerPtr makePlannedScheduler(std::string_view spec) {
  return std::make_unique<PlannedScheduler>(sched::parseSchedulePlanSpec(spec));
}

}  // namespace tetrad
