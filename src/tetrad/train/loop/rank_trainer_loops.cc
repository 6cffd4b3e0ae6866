// The collective and push-pull worker loops (rank_trainer.h) and the
// passes they charge: computeBatch() and applyStep(), inline or on the
// compute pool. rank_trainer.cc sets a run up; rank_trainer_overlap.cc is
// the overlapped loop.
//
// Cost per iteration: compute(batch) + what the sync policy exchanges
// through the architecture (docs/algorithms.md: ring all-reduce of n floats
// on p workers 2(p-1)α + 2(p-1)/p·4n·β; parameter server and Local SGD there
// too).
#include <algorithm>
#include <functional>
#include <optional>

#include "tetrad/train/compute/compute_pool.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {
namespace {

void charge(Transport& world, RunMeter& meter, double seconds) {
  if (seconds > 0) world.compute(seconds);
  meter.addCompute(seconds);
}

// On the pool thread, right after the pass: the non-finite guard's scan of
// the values just computed, which the rank's actor would otherwise run while
// every other rank of the simulation waits (guardStep() takes it).
void scanOnPool(const NonFiniteGuard* guard, WorkerCompute& replica, BatchOutcome& batch) {
  if (guard != nullptr && replica.computesValues()) {
    batch.nonFiniteScan = guard->scan(batch.loss, replica.gradients());
  }
}

}  // namespace

double RankTrainer::chargeMeasured(Run& r, PassLookahead& lookahead, PendingPass& pass,
                                   const std::function<double()>& chargeOf) {
  const double ahead = lookahead.seconds();
  if (ahead > 0) world_.compute(ahead);  // the ranks released meanwhile go on
  pass.finishWhileYielding(world_);
  double charged = chargeOf();
  if (charged < ahead) {
    pool_->countRaisedCharge();
    charged = ahead;
  }
  if (charged > ahead) world_.compute(charged - ahead);
  r.meter->addCompute(charged);
  lookahead.add(charged);
  return charged;
}

BatchOutcome RankTrainer::computeBatch(Run& r, int64_t step, double& start, bool inlineOnly) {
  WorkerCompute& replica = *r.compute;
  const NonFiniteGuard* guard = r.guard.get();
  if (pool_ != nullptr && !inlineOnly && replica.chargesMeasured()) {
    // The charge is the pass's CPU time: sleep through the lookahead, wait
    // for the pass while the ranks released meanwhile hand over theirs, then
    // sleep the rest (compute_pool.h).
    start = world_.now();
    BatchOutcome batch;
    PendingPass pass = pool_->submit([&replica, &batch, step, guard] {
      batch = replica.computeBatch(step);
      scanOnPool(guard, replica, batch);
    });
    batch.charged = chargeMeasured(r, r.batchLookahead, pass,
                                   [&] { return replica.chargeBatch(batch.measured); });
    return batch;
  }
  if (pool_ != nullptr && !inlineOnly) {
    start = world_.now();
    const double charged = replica.chargeBatch(0);  // known before the pass
    BatchOutcome batch;
    PendingPass pass = pool_->submit([&replica, &batch, step, guard] {
      batch = replica.computeBatch(step);
      scanOnPool(guard, replica, batch);
    });
    charge(world_, *r.meter, charged);  // the other ranks go on meanwhile
    pass.finish();
    batch.charged = charged;
    return batch;
  }
  const BatchOutcome batch = replica.forwardBackward(step);
  // Under MPI the batch has just taken real time; under SimGrid it is charged now.
  start = world_.now() - (world_.simulatedClock() ? 0 : batch.measured);
  charge(world_, *r.meter, batch.charged);
  return batch;
}

void RankTrainer::applyStep(Run& r, double lr, bool inlineOnly) {
  WorkerCompute& replica = *r.compute;
  if (pool_ != nullptr && !inlineOnly && replica.chargesMeasured()) {
    double measured = 0;
    PendingPass pass =
        pool_->submit([&replica, &measured, lr] { measured = replica.applyStep(lr); });
    chargeMeasured(r, r.stepLookahead, pass, [&] { return replica.chargeStep(measured); });
    return;
  }
  if (pool_ != nullptr && !inlineOnly) {
    const double charged = replica.chargeStep(0);
    PendingPass pass = pool_->submit([&replica, lr] { replica.applyStep(lr); });
    charge(world_, *r.meter, charged);
    pass.finish();
    return;
  }
  charge(world_, *r.meter, replica.step(lr));
}

void RankTrainer::runCollective(Run& r) {
  const std::span<float> params = r.compute->parameters(), grads = r.compute->gradients();
  // Gossip mixes models where the others average: D-PSGD mixes after every
  // step (adapt, then combine), local:H every H steps.
  const bool mixes = r.exchange->mixesModels();
  ModelAnchor& anchor = r.anchor;  // checkpointed
  std::vector<float> change;
  if (r.sync->averagesModels() && !mixes && !anchor.holds()) anchor.reset(params);
  int64_t iteration = r.firstIteration;
  while (iteration < r.total) {
    if (r.codecClock) r.codecClock->setIteration(iteration);
    const double lr = r.schedule->at(r.lrStep(iteration));
    SyncPoint point = r.sync->at(iteration);
    if (mixes && point.reduceGradients) point = {false, true};
    double mark = 0;
    const BatchOutcome batch = computeBatch(r, iteration, mark);
    r.timeline->add(TimelineTrack::kCompute, "forward+backward", "compute", mark, world_.now(),
                    iteration);
    // The guard's test hook (nonfinite_guard.h) acts whether or not a check
    // runs this iteration (stop:K); what it writes invalidates the pool's scan.
    std::optional<uint32_t> scanned = batch.nonFiniteScan;
    if (r.guard && r.compute->computesValues() &&
        r.guard->injectForTest(iteration + 1, r.compute->gradients())) {
      scanned.reset();
    }
    // accum:K: a micro-batch's gradient waits for the step, which uses the
    // group's mean (the guard below checks that mean).
    if (!point.step) {
      if (r.compute->computesValues()) r.accumulated.add(grads);
    } else if (r.accumulated.pending() > 0) {
      r.accumulated.foldInto(grads);
      scanned.reset();
    }
    // Non-finite loss or gradient on any worker: every worker skips or stops
    // — decided after the exchange where stop's word rides on it, else now.
    r.stopNotAgreed = false;
    const bool rides = point.reduceGradients && armGuardRider(r, iteration, batch.loss);
    bool skip = false;
    if (!rides && point.step && r.guard && r.guard->roundDue(iteration + 1)) {
      skip = guardStep(r, iteration, batch.loss, scanned);
    } else if (!point.step) {
      r.stopNotAgreed = r.checkpointing;  // no round: a signal waits for a checkpoint
    }
    if (r.result.status != RunStatus::kFinished) break;
    if (skip) point = {false, false};
    if (!skip)
      r.meter->addBatch(batch.loss, batch.correct, rankBatchOf(config_, world_.rank(), r.workers));
    // The compressor on this gradient: at the first iteration and before
    // each evaluation (wall time only; the simulated clock does not move).
    const int64_t every = config_.given.evalEvery;
    const int64_t next = iteration + 1;
    if (r.errorProbe && point.reduceGradients &&
        (iteration == 0 || r.endsEpoch(next) || (every > 0 && next % every == 0))) {
      r.errorProbe->measure(grads, iteration);
    }

    if (point.reduceGradients) {
      const double start = world_.now(), codecStart = r.meter->codecTime();
      double from = start;
      for (size_t b = 0; b < r.buckets.size(); ++b) {
        r.exchange->average(ExchangeStream::kGradients, b,
                            grads.subspan(r.buckets[b].offset, r.buckets[b].count));
        const double to = world_.now();
        if (r.timeline->enabled())
          r.timeline->add(TimelineTrack::kCommunication, fmt::format("bucket {}", b), "comm", from,
                          to, iteration, r.buckets[b].count * sizeof(float), int64_t(b));
        from = to;
      }
      r.meter->addCommSince(start, codecStart);
      if (rides) guardAfterRide(r, iteration, batch.loss);
      if (r.result.status != RunStatus::kFinished) break;
    }
    mark = world_.now();
    if (point.step) {
      if (!skip) applyStep(r, lr);
      r.timeline->add(TimelineTrack::kCompute, "optimizer", "optimizer", mark, world_.now(),
                      iteration);
    }
    if (point.averageModels && mixes) {
      const double start = world_.now(), codecStart = r.meter->codecTime();
      r.exchange->mixModels(params, r.mixSteps++);
      r.meter->addCommSince(start, codecStart);
      r.timeline->add(TimelineTrack::kCommunication, "gossip", "comm", start, world_.now(),
                      iteration);
    } else if (point.averageModels) {
      // Local SGD: average the change since the last average, then move on.
      const double start = world_.now(), codecStart = r.meter->codecTime();
      anchor.changeOf(params, change);
      for (size_t b = 0; b < r.buckets.size(); ++b) {
        r.exchange->average(
            ExchangeStream::kModelChange, b,
            std::span<float>(change).subspan(r.buckets[b].offset, r.buckets[b].count));
      }
      anchor.applyAverage(params, change);
      r.meter->addCommSince(start, codecStart);
      r.timeline->add(TimelineTrack::kCommunication, "model average", "comm", start, world_.now(),
                      iteration);
    } else if (anchor.holds() && point.reduceGradients) {
      anchor.reset(params);  // BSP phase of post-local
    }
    ++iteration;
    r.result.iterations = iteration;
    logIteration(r, iteration, lr);
    const bool epochEnd = r.endsEpoch(iteration);
    // Nothing else of this rank runs meanwhile: its passes may go to the pool.
    if (epochEnd || (every > 0 && iteration % every == 0)) evaluate(r, iteration, true);
    if (endIteration(r, iteration, epochEnd)) break;
  }
  if (r.lastEval != iteration && r.result.status != RunStatus::kInterrupted)
    evaluate(r, iteration, true);
}

void RankTrainer::runPushPull(Run& r) {
  const std::span<float> params = r.compute->parameters();
  std::vector<float> anchor(params.begin(), params.end()), change(params.size());
  const bool output = world_.rank() == 0;
  // AD-PSGD (gossip under asp): the models differ; x̄ is evaluated by all
  // workers together once every worker has stopped.
  const bool mixes = r.exchange->mixesModels();
  r.apart = true;
  int64_t step = r.firstIteration;
  int64_t& global = r.global;  // checkpointed
  while (true) {
    const double lr = r.schedule->at(r.lrStep(std::min(global, r.total - 1)));
    if (r.codecClock) r.codecClock->setIteration(step);
    double computeStart = 0;
    // AD-PSGD's passive task mixes into the model while the worker computes:
    // the pass must see the model as it is when it starts (inline).
    const BatchOutcome batch = computeBatch(r, step, computeStart, mixes);
    guardPushPull(r, global, batch.loss);  // before the update is pushed
    r.meter->addBatch(batch.loss, batch.correct, rankBatchOf(config_, world_.rank(), r.workers));
    applyStep(r, lr, mixes);
    r.timeline->add(TimelineTrack::kCompute, "forward+backward+optimizer", "compute", computeStart,
                    world_.now(), step);

    const double start = world_.now(), codecStart = r.meter->codecTime();
    for (size_t i = 0; i < params.size(); ++i) change[i] = params[i] - anchor[i];
    const PullResult pull = r.exchange->pushPull(change, params);
    std::copy(params.begin(), params.end(), anchor.begin());
    r.meter->addCommSince(start, codecStart);
    r.timeline->add(TimelineTrack::kCommunication, "push/pull", "comm", start, world_.now(), step);
    ++step;
    if (pull.staleness >= 0) r.meter->addStaleness(pull.staleness);

    const int64_t now = std::min(pull.updatesApplied / r.workers, r.total);
    if (output) {
      // Global iterations crossed since the last pull: log and evaluate.
      for (int64_t i = global + 1; i <= now; ++i) {
        r.result.iterations = i;
        logIteration(r, i, lr);
        const int64_t every = config_.given.evalEvery;
        const bool due = r.endsEpoch(i) || (every > 0 && i % every == 0) || i == r.total;
        if (due && !(mixes && i == r.total)) evaluate(r, i);  // AD-PSGD's last: below
      }
    }
    global = std::max(global, now);
    if (pull.stop) break;
    // A checkpoint after this local step (the same one on every worker).
    if (endIteration(r, step, r.endsEpoch(step))) break;
  }
  if (r.result.status == RunStatus::kInterrupted) {
    if (mixes) r.exchange->finish();  // every passive task drained; no evaluation
    return;
  }
  if (mixes) {
    r.apart = false;
    r.exchange->finish();  // AD-PSGD: every averaging done and absorbed (run() finds it done)
    evaluate(r, global);   // every worker: x̄, rank 0's own model, consensus
  } else if (output && r.lastEval != global) {
    evaluate(r, global);
  }
}

}  // namespace tetrad::train
