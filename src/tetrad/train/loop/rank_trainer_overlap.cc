// The overlapped worker loop (--sched wfbp | fusion | mgwfbp | priority, on
// --sync bsp): the gradient exchange of iteration i runs in the
// communication task (gradient_pipeline.h) during iteration i's backward
// pass and, with priority, into iteration i+1's forward pass.
//
// Per iteration i:
//   [wait for iteration i−1's units: all (wfbp, fusion, mgwfbp) or, stage by
//    stage, those of the stage about to run (priority); apply that stage's
//    optimizer step] -> forward -> backward (units leave as they are ready)
// The last update is applied before evaluation and at the end.
//
// Cost per iteration (α–β): F + max(B, end of the last unit) for whole-
// tensor plans, less with priority's forward overlap (sched/
// pipeline_cost.h), where unit j's exchange is as in rank_trainer.cc.
//
// MPI: the overlap is real; autograd's hooks hand each gradient to the task
// as it is accumulated. SimGrid: the forward and backward passes run at once
// and their time is then charged piece by piece on the simulated clock —
// each stage's forward after its update arrived, each gradient's share of
// the backward pass before it is handed to the task — so the task starts
// each unit at the simulated instant its last gradient was ready. Charges:
// fixed:/flops: split one iteration's time over the stages by their FLOPs
// (forward 1/3, backward 2/3, as sched/model_shapes.h); measured: the
// backward pass as measured between hooks, the forward pass of iteration i
// with iteration i−1's measured stage times (iteration i's cannot be
// measured before its parameters are updated; the first iteration's own).
// With a compute pool and known charges, wfbp, fusion and mgwfbp run the
// update, forward and backward of an iteration on a pool thread while the
// actor charges them (compute_pool.h); priority, whose updates wait for
// units stage by stage, and measured charges compute inline.
#include <fmt/format.h>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/loop/gradient_pipeline.h"
#include "tetrad/train/loop/rank_trainer_run.h"
#include "tetrad/train/compute/wall_clock.h"

namespace tetrad::train {
namespace {

using Clock = WallClock;

}  // namespace

void RankTrainer::runOverlapped(Run& r) {
  WorkerCompute& replica = *r.compute;
  const bool simulated = world_.simulatedClock();
  const bool gates = r.scheduler->gatesForward();
  const int stages = replica.stageCount();
  GradientPipeline pipeline(world_, *r.exchange, replica.gradients(), r.buckets, replica.slots(),
                            r.slotStage);
  RunMeter& meter = *r.meter;

  // Simulated replay: the gradients in the order autograd produced them.
  std::vector<size_t> fired;
  std::vector<double> firedAt;
  Clock::time_point backwardStart;
  replica.onGradientReady([&](size_t slot) {
    fired.push_back(slot);
    if (simulated) {
      firedAt.push_back(secondsSince(backwardStart));
    } else {
      pipeline.slotReady(slot);
    }
  });

  double stageFlopsTotal = 0;
  for (int s = 0; s < stages; ++s) stageFlopsTotal += replica.stageFlops(s);
  auto flopsShare = [&](int s) { return replica.stageFlops(s) / stageFlopsTotal; };

  double busyBefore = 0;
  Timeline& timeline = *r.timeline;
  auto accountComm = [&] {
    meter.addComm(pipeline.busySeconds() - busyBefore);
    busyBefore = pipeline.busySeconds();
    for (const UnitTiming& t : pipeline.takeTimings()) {
      timeline.add(TimelineTrack::kCommunication, fmt::format("bucket {}", t.unit), "comm", t.start,
                   t.end, t.iteration, r.buckets[t.unit].count * sizeof(float), int64_t(t.unit));
    }
  };
  // Compute-track events: [mark, now] under a name; moves the mark.
  double mark = world_.now();
  int64_t current = 0;  // the iteration events belong to
  auto event = [&](const std::string& name, const char* category) {
    const double now = world_.now();
    if (now > mark || !simulated)
      timeline.add(TimelineTrack::kCompute, name, category, mark, now, current);
    mark = now;
  };
  bool stepPending = false;
  double pendingLr = 0;
  // Applies stage s's share of the pending update once its units are in.
  auto applyStage = [&](int s) {
    if (!simulated && s > 0) event("forward " + replica.stageName(s - 1), "forward");
    if (!stepPending) return;
    mark = world_.now();
    if (gates) {
      pipeline.waitStage(s);
      event("wait " + replica.stageName(s), "wait");
    }
    const double measured = replica.stepStage(s, pendingLr);
    const double charged = replica.chargeStageStep(s, measured);
    if (simulated && charged > 0) world_.compute(charged);
    meter.addCompute(charged);
    event("optimizer " + replica.stageName(s), "optimizer");
  };
  // Waits for every unit and applies the whole pending update.
  auto flush = [&] {
    if (!stepPending) return;
    mark = world_.now();
    pipeline.waitAll();
    event("wait", "wait");
    for (int s = 0; s < stages; ++s) applyStage(s);
    stepPending = false;
    accountComm();
  };

  std::vector<double> lastForward;  // measured mode: iteration i−1's charged stage times
  int64_t iteration = r.firstIteration;
  while (iteration < r.total) {
    const double lr = r.schedule->at(iteration);
    current = iteration;
    mark = world_.now();
    if (stepPending && !gates) {
      pipeline.waitAll();
      event("wait", "wait");
    }
    // Fixed and flops charges are known before computing.
    const bool known = !replica.chargesMeasured();
    const double batchCharge = known ? replica.chargeBatch(0) : 0;
    ForwardOutcome forward;
    double backwardMeasured = 0;
    // Simulated with known charges and no gate: the pending update, the
    // forward and the backward pass run on the compute pool while this actor
    // charges the same stages on the clock (compute_pool.h).
    const bool ahead = simulated && known && !gates && pool_ != nullptr;
    if (ahead) {
      const bool update = stepPending;
      const double updateLr = pendingLr;
      fired.clear();
      firedAt.clear();
      PendingPass pass = pool_->submit([&, update, updateLr] {
        if (update) {
          for (int s = 0; s < stages; ++s) replica.stepStage(s, updateLr);
        }
        forward = replica.forward(iteration, nullptr);
        backwardStart = Clock::now();
        backwardMeasured = replica.backward();
      });
      for (int s = 0; s < stages; ++s) {
        if (update) {  // applyStage(s)'s charge, in its order
          mark = world_.now();
          const double charged = replica.chargeStageStep(s, 0);
          if (charged > 0) world_.compute(charged);
          meter.addCompute(charged);
          event("optimizer " + replica.stageName(s), "optimizer");
        }
        const double charge = batchCharge * flopsShare(s) / 3;
        if (charge > 0) world_.compute(charge);
        meter.addCompute(charge);
        event("forward " + replica.stageName(s), "forward");
      }
      stepPending = false;
      pass.finish();
    } else if (simulated) {
      // Charge the forward stage by stage on the simulated clock (after each
      // stage's update), then compute it for real.
      if (known || !lastForward.empty()) {
        for (int s = 0; s < stages; ++s) {
          applyStage(s);
          const double charge = known ? batchCharge * flopsShare(s) / 3 : lastForward[size_t(s)];
          if (charge > 0) world_.compute(charge);
          meter.addCompute(charge);
          event("forward " + replica.stageName(s), "forward");
        }
        stepPending = false;
      }
      forward = replica.forward(iteration, nullptr);
    } else {
      mark = world_.now();
      forward = replica.forward(iteration, applyStage);
      event("forward " + replica.stageName(stages - 1), "forward");
      stepPending = false;
      for (double seconds : forward.stageSeconds) meter.addCompute(seconds);
    }
    accountComm();

    pipeline.beginIteration(iteration);
    if (!ahead) {
      fired.clear();
      firedAt.clear();
      backwardStart = Clock::now();
      backwardMeasured = replica.backward();
    }
    // Every gradient must have fired, or a unit would never become ready.
    TETRAD_CHECK(fired.size() == replica.slots().size(), Error,
                 "rank {}: backward produced {} of {} gradients (a parameter unused by the "
                 "model?)",
                 world_.rank(), fired.size(), replica.slots().size());
    if (simulated) {
      double forwardMeasured = 0;
      for (double seconds : forward.stageSeconds) forwardMeasured += seconds;
      const double total = forwardMeasured + backwardMeasured;
      const double ratio = known ? 0 : replica.chargeBatch(total) / std::max(total, 1e-12);
      if (!known && lastForward.empty()) {  // first iteration: its own forward
        for (int s = 0; s < stages; ++s) {
          const double seconds = forward.stageSeconds[size_t(s)] * ratio;
          world_.compute(seconds);
          meter.addCompute(seconds);
          event("forward " + replica.stageName(s), "forward");
        }
      }
      if (!known) {
        lastForward.clear();
        for (double seconds : forward.stageSeconds) lastForward.push_back(seconds * ratio);
      }
      // Replay the backward pass: each gradient's share, then hand it over.
      std::vector<char> stageCharged(size_t(stages), 0);
      double previous = 0;
      for (size_t k = 0; k < fired.size(); ++k) {
        double charge = 0;
        if (known) {
          const int s = replica.stageOfSlot(fired[k]);
          if (!stageCharged[size_t(s)]) {
            stageCharged[size_t(s)] = 1;
            charge = batchCharge * flopsShare(s) * 2 / 3;
          }
        } else {
          charge = (firedAt[k] - previous) * ratio;
          previous = firedAt[k];
        }
        if (charge > 0) world_.compute(charge);
        meter.addCompute(charge);
        event("backward " + replica.stageName(replica.stageOfSlot(fired[k])), "backward");
        pipeline.slotReady(fired[k]);
      }
      if (!known && backwardMeasured > previous) {
        world_.compute((backwardMeasured - previous) * ratio);
        meter.addCompute((backwardMeasured - previous) * ratio);
        event("backward", "backward");
      }
    } else {
      meter.addCompute(backwardMeasured);
      event("backward", "backward");
    }
    // The guard reads the gradients, which the task may still be averaging
    // in place: it waits for the exchange first (with priority this gives up
    // the next forward's overlap; --on-nonfinite off keeps it).
    bool skip = false;
    if (r.guard) {
      pipeline.waitAll();
      accountComm();
      skip = guardStep(r, iteration, forward.loss);
      if (r.result.status != RunStatus::kFinished) break;
    }
    if (!skip) {
      meter.addBatch(forward.loss, forward.correct, config_.given.batchSize);
      stepPending = true;
      pendingLr = lr;
    }

    ++iteration;
    r.result.iterations = iteration;
    logIteration(r, iteration, lr);
    const bool epochEnd = iteration % r.perEpoch == 0;
    const int64_t every = config_.given.evalEvery;
    if (epochEnd || (every > 0 && iteration % every == 0)) {
      flush();
      evaluate(r, iteration);
    }
    // A checkpoint holds no update in flight.
    if (checkpointDue(r, iteration, epochEnd) || (r.guard && r.guard->stopAgreed())) flush();
    if (endIteration(r, iteration, epochEnd)) break;
  }
  flush();
  if (r.lastEval != iteration && r.result.status != RunStatus::kInterrupted) evaluate(r, iteration);
  replica.onGradientReady(nullptr);
  pipeline.stop();
}

}  // namespace tetrad::train
