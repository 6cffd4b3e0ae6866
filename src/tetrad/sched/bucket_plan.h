// The inputs and outputs of communication scheduling: tensor slots, buckets,
// chunks and the plan that groups or cuts them.
//
// A TensorSlot describes one parameter tensor in *backward-ready order*, the
// order in which autograd produces gradients (last layer first): its size in
// bytes on the wire (float32 count × 4), the backward time of its part of the
// network (seconds between the previous slot becoming ready and this one;
// the first slot's time counts from the start of the backward pass), and the
// index of its layer in the forward pass (front layers have small indices).
//
// A plan says what goes on the wire. Whole-tensor plans (none, wfbp, fusion,
// mgwfbp) are a list of Buckets, each a run of consecutive ready-order slots,
// sent one at a time in list order, each once its last slot is ready.
// Partitioned plans (priority) are a list of Chunks, pieces of at most PART
// bytes of one slot, sent in an order decided at run time: among the chunks
// that are ready, the one of the front-most layer first (priority.h).
//
// Every plan covers every byte of every slot exactly once and in ready order
// (checkPlan() verifies it). Plans are computed by pure functions from the
// slots (and, for mgwfbp, a CommCost); the values here are plain data, safe
// to share between threads once built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tetrad::sched {

struct TensorSlot {
  uint64_t bytes = 0;          // on the wire: float32 count × 4
  double backwardSeconds = 0;  // since the previous slot became ready
  int layer = 0;               // forward-layer index (0 = the front of the network)
};

// Slots [first, first + count) of the ready order, `bytes` in all.
struct Bucket {
  size_t first = 0;
  size_t count = 0;
  uint64_t bytes = 0;
};

// Bytes [offset, offset + bytes) of slot `slot`; `layer` is the slot's layer.
struct Chunk {
  size_t slot = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  int layer = 0;
};

// How the units of a plan are ordered on the one communication channel.
enum class SendOrder {
  kPlanOrder,        // buckets in list order (whole-tensor plans)
  kFrontLayerFirst,  // among ready chunks, the smallest layer index first (priority)
};

// When one unit of a plan (bucket or chunk `unit`, an index into the plan's
// list) is on the wire, in seconds after the backward pass starts.
struct MessageTiming {
  size_t unit = 0;
  double start = 0;
  double end = 0;
};

struct SchedulePlan {
  std::string name;  // the spec as given to parseSchedulePlanSpec, e.g. "fusion:4MB"
  SendOrder order = SendOrder::kPlanOrder;
  std::vector<Bucket> buckets;  // kPlanOrder
  std::vector<Chunk> chunks;    // kFrontLayerFirst, listed in ready order
  bool afterBackward = false;   // "none": nothing is sent before the backward ends

  // The number of messages on the wire per iteration.
  size_t messageCount() const {
    return order == SendOrder::kPlanOrder ? buckets.size() : chunks.size();
  }
};

// Throws InvalidArgument unless the slots are usable: at least one, every
// size a positive multiple of 4 bytes, every backward time finite and >= 0,
// every layer index >= 0.
void checkSlots(std::span<const TensorSlot> slots);

// Throws InvalidArgument (naming the plan and the first offending unit)
// unless the plan covers every byte of every slot exactly once, in ready
// order: buckets are consecutive, non-empty and their bytes are the sums of
// their slots; chunks are non-empty, float-aligned, contiguous within a slot
// and carry their slot's layer.
void checkPlan(std::span<const TensorSlot> slots, const SchedulePlan& plan);

// For a whole-tensor plan, the index of the bucket holding each slot (what
// a run-time scheduler needs to count a bucket's ready slots). Throws
// InvalidArgument unless the plan is a valid whole-tensor plan of `slots`.
std::vector<size_t> bucketOfSlot(std::span<const TensorSlot> slots, const SchedulePlan& plan);

// The bytes of slots [first, first + count).
uint64_t slotBytes(std::span<const TensorSlot> slots, size_t first, size_t count);

// When each slot becomes ready, in seconds after the backward pass starts:
// the running sum of backwardSeconds.
std::vector<double> slotReadyTimes(std::span<const TensorSlot> slots);

// Total backward time (the last slot's ready time).
double backwardSeconds(std::span<const TensorSlot> slots);

}  // namespace tetrad::sched
