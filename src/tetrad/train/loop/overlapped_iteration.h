// OverlappedIteration: the mechanics of one rank's overlapped iterations
// (--sched wfbp | fusion | mgwfbp | priority, on --sync bsp), which the
// worker loop drives (rank_trainer_overlap.cc): each iteration's forward and
// backward passes with the gradient exchange of the iteration running in the
// communication task (gradient_pipeline.h) while backward goes on, the
// pending optimizer step applied stage by stage when its units are in, and
// the compute and communication time put on the meter and the timeline.
//
// The backward clock is chosen once, at construction:
//   kWall             (MPI) the overlap is real: autograd's hooks hand each
//                     gradient to the task as it is accumulated; the
//                     forward pass applies each stage's update just before
//                     the stage runs.
//   kSimulatedReplay  (SimGrid) the passes run at once and their time is
//                     then charged piece by piece on the simulated clock —
//                     each stage's forward after its update arrived, each
//                     gradient's share of the backward pass before it is
//                     handed to the task — so the task starts each unit at
//                     the simulated instant its last gradient was ready.
// Charges: fixed:/flops: (and a nominal replica's) are known before a pass
// and split one iteration's time over the stages by their FLOPs (forward
// 1/3, backward 2/3); measured: the backward pass as measured between hooks,
// the forward pass of iteration i with iteration i−1's measured stage times
// (iteration i's cannot be measured before its parameters are updated; the
// first iteration's own). With a compute pool and known charges, wfbp,
// fusion and mgwfbp run the update, forward and backward of an iteration on
// a pool thread while the worker charges them (compute_pool.h).
//
// Thread-safety: one object per rank, used by that rank's worker only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tetrad/arch/exchange.h"
#include "tetrad/sched/bucketing.h"
#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/compute/wall_clock.h"
#include "tetrad/train/compute/worker_compute.h"
#include "tetrad/train/loop/gradient_pipeline.h"
#include "tetrad/train/record/run_meter.h"
#include "tetrad/train/record/timeline.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

// What an overlapped iteration works with (owned by the worker loop).
struct OverlapParts {
  Transport* world = nullptr;
  WorkerCompute* compute = nullptr;
  Exchange* exchange = nullptr;
  RunMeter* meter = nullptr;
  Timeline* timeline = nullptr;
  ComputePool* pool = nullptr;           // may be null
  std::span<const BucketRange> buckets;  // the plan's units, in send order
  std::span<const int> slotStage;        // forward stage of each slot
  bool gatesForward = false;             // priority: stage-by-stage waits
};

class OverlappedIteration {
 public:
  enum class BackwardClock { kWall, kSimulatedReplay };

  explicit OverlappedIteration(const OverlapParts& parts);
  ~OverlappedIteration();  // detaches the gradient hook (the pipeline stops its task)
  OverlappedIteration(const OverlappedIteration&) = delete;
  OverlappedIteration& operator=(const OverlappedIteration&) = delete;

  // Forward and backward of `iteration`: applies the pending update (all of
  // it first, or stage by stage with a gating schedule), hands every
  // gradient to the communication task and returns the forward's outcome.
  ForwardOutcome forwardBackward(int64_t iteration);
  // Waits for this iteration's units (before the non-finite guard reads the
  // gradients, which the task may still be averaging in place).
  void waitForUnits();
  // The update of this iteration's averaged gradients, applied by the next
  // forwardBackward() or flush().
  void setPendingStep(double lr);
  // Waits for every unit and applies the whole pending update (before an
  // evaluation, a checkpoint cut and the end).
  void flush();
  // The end of the loop: flush() first; stops the task (rethrowing its
  // error, if any).
  void finish();

 private:
  bool replays() const { return clock_ == BackwardClock::kSimulatedReplay; }
  void accountComm();
  // A compute-track event [mark, now] named `what` (and stage `stage`'s
  // name when ≥ 0), recorded when the timeline is on; moves the mark.
  void event(const char* what, int stage, const char* category);
  void applyStage(int stage);
  double flopsShare(int stage) const { return compute_.stageFlops(stage) / stageFlopsTotal_; }
  void chargeOnClock(double seconds);
  // The simulated replay of the backward pass (kSimulatedReplay).
  void replayBackward(const ForwardOutcome& forward, bool known, double batchCharge);

  Transport& world_;
  WorkerCompute& compute_;
  RunMeter& meter_;
  Timeline& timeline_;
  ComputePool* pool_;
  std::span<const BucketRange> buckets_;
  const bool gates_;
  const BackwardClock clock_;
  const int stages_;
  double stageFlopsTotal_ = 0;
  GradientPipeline pipeline_;

  // Simulated replay: the gradients in the order autograd produced them.
  std::vector<size_t> fired_;
  std::vector<double> firedAt_;
  WallClock::time_point backwardStart_;
  double backwardMeasured_ = 0;

  double busyBefore_ = 0;
  double codecBefore_ = 0;  // the meter's codec time at the last accounting
  double mark_ = 0;         // start of the next compute-track event
  int64_t current_ = 0;     // the iteration events belong to
  bool stepPending_ = false;
  double pendingLr_ = 0;
  std::vector<double> lastForward_;  // measured: iteration i−1's charged stage times
};

}  // namespace tetrad::train
