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
// The mechanics of one iteration — the backward clock (real overlap under
// MPI, a replay on the simulated clock under SimGrid), the charges, the
// stage-by-stage update — are OverlappedIteration's (overlapped_iteration.h).
// This file is the loop around it: the guard, logging, evaluation and the
// checkpoint cut, as in the other loops.
#include "tetrad/train/loop/overlapped_iteration.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {

void RankTrainer::runOverlapped(Run& r) {
  OverlapParts parts;
  parts.world = &world_;
  parts.compute = r.compute.get();
  parts.exchange = r.exchange.get();
  parts.meter = r.meter.get();
  parts.timeline = r.timeline.get();
  parts.pool = pool_;
  parts.buckets = r.buckets;
  parts.slotStage = r.slotStage;
  parts.gatesForward = r.scheduler->gatesForward();
  OverlappedIteration overlap(parts);

  int64_t iteration = r.firstIteration;
  while (iteration < r.total) {
    if (r.codecClock) r.codecClock->setIteration(iteration);
    const double lr = r.schedule->at(r.lrStep(iteration));
    const ForwardOutcome forward = overlap.forwardBackward(iteration);
    // The guard reads the gradients, which the task may still be averaging
    // in place: it waits for the exchange first (with priority this gives up
    // the next forward's overlap; --on-nonfinite off keeps it).
    bool skip = false;
    if (r.guard && r.guard->roundDue(iteration + 1)) {
      overlap.waitForUnits();
      skip = guardStep(r, iteration, forward.loss);
      if (r.result.status != RunStatus::kFinished) break;
    }
    if (!skip) {
      r.meter->addBatch(forward.loss, forward.correct, rankBatchOf(config_, world_.rank(), r.workers));
      overlap.setPendingStep(lr);
    }

    ++iteration;
    r.result.iterations = iteration;
    logIteration(r, iteration, lr);
    const bool epochEnd = r.endsEpoch(iteration);
    const int64_t every = config_.given.evalEvery;
    if (epochEnd || (every > 0 && iteration % every == 0)) {
      overlap.flush();
      evaluate(r, iteration);
    }
    // A checkpoint holds no update in flight.
    if (checkpointDue(r, iteration, epochEnd) || (r.guard && r.guard->stopAgreed())) {
      overlap.flush();
    }
    if (endIteration(r, iteration, epochEnd)) break;
  }
  overlap.flush();
  if (r.lastEval != iteration && r.result.status != RunStatus::kInterrupted) evaluate(r, iteration);
  overlap.finish();
}

}  // namespace tetrad::train
