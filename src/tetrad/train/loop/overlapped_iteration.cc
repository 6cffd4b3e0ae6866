// Cost per iteration (α–β): F + max(B, end of the last unit) for whole-
// tensor plans, less with priority's forward overlap (sched/
// pipeline_cost.h), where unit j's exchange is as in rank_trainer.cc.
#include "tetrad/train/loop/overlapped_iteration.h"

#include <fmt/format.h>

#include <algorithm>

#include "tetrad/core/error.h"

namespace tetrad::train {

OverlappedIteration::OverlappedIteration(const OverlapParts& parts)
    : world_(*parts.world),
      compute_(*parts.compute),
      meter_(*parts.meter),
      timeline_(*parts.timeline),
      pool_(parts.pool),
      buckets_(parts.buckets),
      gates_(parts.gatesForward),
      clock_(parts.world->simulatedClock() ? BackwardClock::kSimulatedReplay
                                           : BackwardClock::kWall),
      stages_(parts.compute->stageCount()),
      pipeline_(*parts.world, *parts.exchange, parts.compute->gradients(),
                std::vector<BucketRange>(parts.buckets.begin(), parts.buckets.end()),
                parts.compute->slots(), parts.slotStage) {
  codecBefore_ = meter_.codecTime();
  for (int s = 0; s < stages_; ++s) stageFlopsTotal_ += compute_.stageFlops(s);
  compute_.onGradientReady([this](size_t slot) {
    fired_.push_back(slot);
    if (replays()) {
      firedAt_.push_back(secondsSince(backwardStart_));
    } else {
      pipeline_.slotReady(slot);
    }
  });
  mark_ = world_.now();
}

OverlappedIteration::~OverlappedIteration() {
  compute_.onGradientReady(nullptr);
}

void OverlappedIteration::accountComm() {
  // The task's busy time less the codec work it was charged meanwhile.
  const double codec = meter_.codecTime();
  meter_.addComm(std::max(0.0, pipeline_.busySeconds() - busyBefore_ - (codec - codecBefore_)));
  busyBefore_ = pipeline_.busySeconds();
  codecBefore_ = codec;
  const std::vector<UnitTiming> timings = pipeline_.takeTimings();
  if (!timeline_.enabled()) return;
  for (const UnitTiming& t : timings) {
    timeline_.add(TimelineTrack::kCommunication, fmt::format("bucket {}", t.unit), "comm", t.start,
                  t.end, t.iteration, buckets_[t.unit].count * sizeof(float), int64_t(t.unit));
  }
}

void OverlappedIteration::event(const char* what, int stage, const char* category) {
  const double now = world_.now();
  if (timeline_.enabled() && (now > mark_ || !replays())) {
    const std::string name =
        stage < 0 ? std::string(what) : fmt::format("{} {}", what, compute_.stageName(stage));
    timeline_.add(TimelineTrack::kCompute, name, category, mark_, now, current_);
  }
  mark_ = now;
}

void OverlappedIteration::chargeOnClock(double seconds) {
  if (seconds > 0) world_.compute(seconds);
  meter_.addCompute(seconds);
}

// Stage s's share of the pending update, once its units are in.
void OverlappedIteration::applyStage(int s) {
  if (!replays() && s > 0) event("forward", s - 1, "forward");
  if (!stepPending_) return;
  mark_ = world_.now();
  if (gates_) {
    pipeline_.waitStage(s);
    event("wait", s, "wait");
  }
  const double measured = compute_.stepStage(s, pendingLr_);
  const double charged = compute_.chargeStageStep(s, measured);
  if (replays() && charged > 0) world_.compute(charged);
  meter_.addCompute(charged);
  event("optimizer", s, "optimizer");
}

void OverlappedIteration::flush() {
  if (!stepPending_) return;
  mark_ = world_.now();
  pipeline_.waitAll();
  event("wait", -1, "wait");
  for (int s = 0; s < stages_; ++s) applyStage(s);
  stepPending_ = false;
  accountComm();
}

void OverlappedIteration::finish() {
  flush();
  compute_.onGradientReady(nullptr);
  pipeline_.stop();
}

void OverlappedIteration::waitForUnits() {
  pipeline_.waitAll();
  accountComm();
}

void OverlappedIteration::setPendingStep(double lr) {
  stepPending_ = true;
  pendingLr_ = lr;
}

ForwardOutcome OverlappedIteration::forwardBackward(int64_t iteration) {
  current_ = iteration;
  mark_ = world_.now();
  if (stepPending_ && !gates_) {
    pipeline_.waitAll();
    event("wait", -1, "wait");
  }
  // Fixed and flops charges are known before computing.
  const bool known = !compute_.chargesMeasured();
  const double batchCharge = known ? compute_.chargeBatch(0) : 0;
  ForwardOutcome forward;
  // Replayed with known charges and no gate: the pending update, the
  // forward and the backward pass run on the compute pool while this actor
  // charges the same stages on the clock (compute_pool.h).
  const bool ahead = replays() && known && !gates_ && pool_ != nullptr;
  if (ahead) {
    const bool update = stepPending_;
    const double updateLr = pendingLr_;
    fired_.clear();
    firedAt_.clear();
    PendingPass pass = pool_->submit([&, update, updateLr] {
      if (update) {
        for (int s = 0; s < stages_; ++s) compute_.stepStage(s, updateLr);
      }
      forward = compute_.forward(iteration, nullptr);
      backwardStart_ = WallClock::now();
      backwardMeasured_ = compute_.backward();
    });
    for (int s = 0; s < stages_; ++s) {
      if (update) {  // applyStage(s)'s charge, in its order
        mark_ = world_.now();
        const double charged = compute_.chargeStageStep(s, 0);
        if (charged > 0) world_.compute(charged);
        meter_.addCompute(charged);
        event("optimizer", s, "optimizer");
      }
      chargeOnClock(batchCharge * flopsShare(s) / 3);
      event("forward", s, "forward");
    }
    stepPending_ = false;
    pass.finish();
  } else if (replays()) {
    // Charge the forward stage by stage on the simulated clock (after each
    // stage's update), then compute it for real.
    if (known || !lastForward_.empty()) {
      for (int s = 0; s < stages_; ++s) {
        applyStage(s);
        chargeOnClock(known ? batchCharge * flopsShare(s) / 3 : lastForward_[size_t(s)]);
        event("forward", s, "forward");
      }
      stepPending_ = false;
    }
    forward = compute_.forward(iteration, nullptr);
  } else {
    mark_ = world_.now();
    forward = compute_.forward(iteration, [this](int s) { applyStage(s); });
    event("forward", stages_ - 1, "forward");
    stepPending_ = false;
    for (double seconds : forward.stageSeconds) meter_.addCompute(seconds);
  }
  accountComm();

  pipeline_.beginIteration(iteration);
  if (!ahead) {
    fired_.clear();
    firedAt_.clear();
    backwardStart_ = WallClock::now();
    backwardMeasured_ = compute_.backward();
  }
  // Every gradient must have fired, or a unit would never become ready.
  TETRAD_CHECK(fired_.size() == compute_.slots().size(), Error,
               "rank {}: backward produced {} of {} gradients (a parameter unused by the "
               "model?)",
               world_.rank(), fired_.size(), compute_.slots().size());
  if (replays()) {
    replayBackward(forward, known, batchCharge);
  } else {
    meter_.addCompute(backwardMeasured_);
    event("backward", -1, "backward");
  }
  return forward;
}

void OverlappedIteration::replayBackward(const ForwardOutcome& forward, bool known,
                                         double batchCharge) {
  double forwardMeasured = 0;
  for (double seconds : forward.stageSeconds) forwardMeasured += seconds;
  const double total = forwardMeasured + backwardMeasured_;
  const double ratio = known ? 0 : compute_.chargeBatch(total) / std::max(total, 1e-12);
  if (!known && lastForward_.empty()) {  // first iteration: its own forward
    for (int s = 0; s < stages_; ++s) {
      const double seconds = forward.stageSeconds[size_t(s)] * ratio;
      world_.compute(seconds);
      meter_.addCompute(seconds);
      event("forward", s, "forward");
    }
  }
  if (!known) {
    lastForward_.clear();
    for (double seconds : forward.stageSeconds) lastForward_.push_back(seconds * ratio);
  }
  // Each gradient's share, then hand it over.
  std::vector<char> stageCharged(size_t(stages_), 0);
  double previous = 0;
  for (size_t k = 0; k < fired_.size(); ++k) {
    double charge = 0;
    if (known) {
      const int s = compute_.stageOfSlot(fired_[k]);
      if (!stageCharged[size_t(s)]) {
        stageCharged[size_t(s)] = 1;
        charge = batchCharge * flopsShare(s) * 2 / 3;
      }
    } else {
      charge = (firedAt_[k] - previous) * ratio;
      previous = firedAt_[k];
    }
    chargeOnClock(charge);
    event("backward", compute_.stageOfSlot(fired_[k]), "backward");
    pipeline_.slotReady(fired_[k]);
  }
  if (!known && backwardMeasured_ > previous) {
    world_.compute((backwardMeasured_ - previous) * ratio);
    meter_.addCompute((backwardMeasured_ - previous) * ratio);
    event("backward", -1, "backward");
  }
}

}  // namespace tetrad::train
