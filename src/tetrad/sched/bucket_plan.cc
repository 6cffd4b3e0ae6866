// Validation and small helpers of the plan types (bucket_plan.h).
#include "tetrad/sched/bucket_plan.h"

#include <cmath>

#include "tetrad/core/error.h"

namespace tetrad::sched {

void checkSlots(std::span<const TensorSlot> slots) {
  TETRAD_CHECK(!slots.empty(), InvalidArgument, "schedule: no tensors to schedule");
  for (size_t i = 0; i < slots.size(); ++i) {
    const TensorSlot& s = slots[i];
    TETRAD_CHECK(s.bytes > 0 && s.bytes % sizeof(float) == 0, InvalidArgument,
                 "schedule: tensor slot {} has {} bytes (must be a positive multiple of 4)", i,
                 s.bytes);
    TETRAD_CHECK(std::isfinite(s.backwardSeconds) && s.backwardSeconds >= 0, InvalidArgument,
                 "schedule: tensor slot {} has backward time {} s (must be finite and >= 0)", i,
                 s.backwardSeconds);
    TETRAD_CHECK(s.layer >= 0, InvalidArgument,
                 "schedule: tensor slot {} has layer index {} (must be >= 0)", i, s.layer);
  }
}

namespace {

void checkBuckets(std::span<const TensorSlot> slots, const SchedulePlan& plan) {
  size_t next = 0;
  for (size_t b = 0; b < plan.buckets.size(); ++b) {
    const Bucket& bucket = plan.buckets[b];
    TETRAD_CHECK(bucket.count > 0 && bucket.first == next && next + bucket.count <= slots.size(),
                 InvalidArgument,
                 "plan '{}': bucket {} holds slots [{}, {}) but slot {} of {} comes next",
                 plan.name, b, bucket.first, bucket.first + bucket.count, next, slots.size());
    const uint64_t bytes = slotBytes(slots, bucket.first, bucket.count);
    TETRAD_CHECK(bucket.bytes == bytes, InvalidArgument,
                 "plan '{}': bucket {} says {} bytes but its slots hold {}", plan.name, b,
                 bucket.bytes, bytes);
    next += bucket.count;
  }
  TETRAD_CHECK(next == slots.size(), InvalidArgument,
               "plan '{}': buckets cover {} of {} tensor slots", plan.name, next, slots.size());
}

void checkChunks(std::span<const TensorSlot> slots, const SchedulePlan& plan) {
  size_t slot = 0;
  uint64_t offset = 0;
  for (size_t c = 0; c < plan.chunks.size(); ++c) {
    const Chunk& chunk = plan.chunks[c];
    if (slot < slots.size() && offset == slots[slot].bytes) {
      ++slot;
      offset = 0;
    }
    TETRAD_CHECK(slot < slots.size() && chunk.slot == slot && chunk.offset == offset &&
                     chunk.bytes > 0 && chunk.bytes % sizeof(float) == 0 &&
                     offset + chunk.bytes <= slots[slot].bytes,
                 InvalidArgument,
                 "plan '{}': chunk {} is bytes [{}, {}) of slot {}, expected bytes from {} of "
                 "slot {}",
                 plan.name, c, chunk.offset, chunk.offset + chunk.bytes, chunk.slot, offset, slot);
    TETRAD_CHECK(chunk.layer == slots[slot].layer, InvalidArgument,
                 "plan '{}': chunk {} has layer {}, its slot {} has layer {}", plan.name, c,
                 chunk.layer, slot, slots[slot].layer);
    offset += chunk.bytes;
  }
  const bool complete = slot + 1 == slots.size() && offset == slots.back().bytes;
  TETRAD_CHECK(complete, InvalidArgument,
               "plan '{}': chunks end at byte {} of slot {}; {} slots must be covered", plan.name,
               offset, slot, slots.size());
}

}  // namespace

void checkPlan(std::span<const TensorSlot> slots, const SchedulePlan& plan) {
  checkSlots(slots);
  if (plan.order == SendOrder::kPlanOrder) {
    TETRAD_CHECK(plan.chunks.empty(), InvalidArgument,
                 "plan '{}': a whole-tensor plan has no chunks", plan.name);
    checkBuckets(slots, plan);
  } else {
    TETRAD_CHECK(plan.buckets.empty() && !plan.afterBackward, InvalidArgument,
                 "plan '{}': a partitioned plan has only chunks", plan.name);
    checkChunks(slots, plan);
  }
}

std::vector<size_t> bucketOfSlot(std::span<const TensorSlot> slots, const SchedulePlan& plan) {
  checkPlan(slots, plan);
  TETRAD_CHECK(plan.order == SendOrder::kPlanOrder, InvalidArgument,
               "plan '{}' is not a whole-tensor plan", plan.name);
  std::vector<size_t> bucket(slots.size());
  for (size_t b = 0; b < plan.buckets.size(); ++b) {
    for (size_t i = 0; i < plan.buckets[b].count; ++i) bucket[plan.buckets[b].first + i] = b;
  }
  return bucket;
}

uint64_t slotBytes(std::span<const TensorSlot> slots, size_t first, size_t count) {
  uint64_t bytes = 0;
  for (size_t i = first; i < first + count && i < slots.size(); ++i) bytes += slots[i].bytes;
  return bytes;
}

std::vector<double> slotReadyTimes(std::span<const TensorSlot> slots) {
  std::vector<double> ready(slots.size());
  double t = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    t += slots[i].backwardSeconds;
    ready[i] = t;
  }
  return ready;
}

double backwardSeconds(std::span<const TensorSlot> slots) {
  double t = 0;
  for (const TensorSlot& s : slots) t += s.backwardSeconds;
  return t;
}

}  // namespace tetrad::sched
