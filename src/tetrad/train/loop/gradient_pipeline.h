// GradientPipeline: one rank's communication task for the overlapping
// schedulers (wfbp, fusion, mgwfbp, priority): it exchanges the units of the
// plan (ranges of the flat gradient buffer, in send order) as their
// gradients become ready, while the worker goes on with the backward pass.
//
//   worker (backward)            communication task (Transport::spawn)
//   slotReady(p) per gradient -> ready queue -> unit j, in plan order, once
//                                               all its gradients are ready:
//                                               exchange.average(unit j)
//   waitAll() / waitStage(s)  <- done queue  <- unit j done
//
// Every rank sends the same units in the same order, so the collectives of
// the units match across ranks. Under MPI the task is a thread and the
// overlap is real (slotReady is called from autograd's hook during
// backward). Under SimGrid it is an actor: the worker computes the backward
// pass at once and then replays it on the simulated clock, charging each
// gradient's share of the backward time before calling slotReady, so each
// unit starts at the simulated instant its last gradient was ready.
//
// Errors: an exception in the task (a timeout, a dead peer, a bad packet)
// ends the task and wakes the worker, whose next wait rethrows it; a worker
// that stops (an exception of its own, the end of training) stops the task.
// No wait is unbounded: queue waits time out after the transport's timeout.
//
// Thread-safety: the public methods belong to the worker (slotReady may run
// on the thread that runs backward, which is the worker's own thread in
// LibTorch's CPU engine); the task touches only its own state and the
// exchange.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tetrad/arch/exchange.h"
#include "tetrad/sched/bucketing.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

// When one unit was on the wire (engine clock), for the timeline.
struct UnitTiming {
  size_t unit = 0;
  int64_t iteration = 0;
  double start = 0, end = 0;
};

class GradientPipeline {
 public:
  // `units`: the plan's ranges of `gradients`, in send order; `slots`: the
  // parameters (parameter order) with `slotStage` their forward stage.
  GradientPipeline(Transport& world, Exchange& exchange, std::span<float> gradients,
                   std::vector<BucketRange> units, std::span<const ParameterSlot> slots,
                   std::span<const int> slotStage);
  ~GradientPipeline();
  GradientPipeline(const GradientPipeline&) = delete;
  GradientPipeline& operator=(const GradientPipeline&) = delete;

  // Starts an iteration's exchange; every unit of the previous one must be
  // done (waitAll).
  void beginIteration(int64_t iteration);
  // Parameter `slot`'s gradient is in the buffer.
  void slotReady(size_t slot);
  // Blocks until every unit of the current iteration is exchanged.
  void waitAll();
  // Blocks until every unit holding a gradient of stage `stage` is exchanged.
  void waitStage(int stage);
  // True between beginIteration and the wait that saw its last unit.
  bool pending() const { return begun_ && doneCount_ < units_.size(); }
  // Seconds the task spent exchanging, and each unit's timing (drained by
  // the caller); read after a wait.
  double busySeconds() const { return busySeconds_; }
  std::vector<UnitTiming> takeTimings();
  // Stops the task and rethrows its error, if any. Idempotent.
  void stop();

 private:
  void runTask();
  void markDone(int64_t unit);

  Transport& world_;
  Exchange& exchange_;
  std::span<float> gradients_;
  std::vector<BucketRange> units_;
  std::vector<std::vector<size_t>> unitsOfSlot_;   // slot -> units holding part of it
  std::vector<std::vector<size_t>> unitsOfStage_;  // stage -> units
  std::vector<size_t> slotsPerUnit_;
  // Worker state.
  std::vector<size_t> waitingSlots_;  // per unit, this iteration
  std::vector<char> unitDone_;
  size_t doneCount_ = 0;
  bool begun_ = false;
  int64_t iteration_ = 0;
  // Task state, read by the worker only after a done-queue handoff.
  double busySeconds_ = 0;
  std::vector<UnitTiming> timings_;
  LocalQueuePtr ready_, done_;
  TaskPtr task_;
  bool stopped_ = false;
};

}  // namespace tetrad::train
