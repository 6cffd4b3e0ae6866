// RankTrainer's evaluation and metrics lines (see rank_trainer.h): what is
// measured, on which model, and what is excluded from the training numbers.
#include <algorithm>
#include <limits>

#include "tetrad/train/loop/consensus.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {

// Collective policies: every worker evaluates its share of the test set.
// Gossip: the workers' models differ, so the average model x̄ is evaluated
// that way, and rank 0 also evaluates its own model on the whole test set.
// Push-pull: rank 0 alone, on the weights it pulled last (AD-PSGD: its own
// model while the workers run apart; at the end all workers evaluate x̄ as
// above, and measure the consensus distance). All of it is bracketed as
// evaluation (no training time, no training bytes).
void RankTrainer::evaluate(Run& r, int64_t iteration, bool passesOnPool) {
  const bool pushPull = r.sync->mode() == SyncMode::kPushPull && r.apart;
  const bool mixes = r.exchange->mixesModels() && !r.apart;
  WorkerCompute& compute = *r.compute;
  const std::span<float> params = compute.parameters();
  r.meter->beginEval();
  // With measured compute, the forward passes go to the pool. The ranks
  // enter an evaluation at different simulated instants (their last charges
  // differ), so, as for a measured pass (compute_pool.h), the rank sleeps
  // through its pass lookahead while the others hand over theirs, then waits
  // for its own. That simulated time is evaluation's, which RunMeter
  // excludes from the training time; fixed and flops runs keep evaluating
  // inline, so their simulated times stay those of a serial run.
  const bool onPool = passesOnPool && pool_ != nullptr && compute.chargesMeasured();
  const WorkerCompute::LocalRunner runLocal = [this, onPool, &r](const std::function<void()>& job) {
    if (!onPool) {
      job();
      return;
    }
    PendingPass pass = pool_->submit(job);
    world_.sleepFor(r.batchLookahead.seconds());
    pass.finishWhileYielding(world_);
  };
  std::unique_ptr<PrefixTransport> alone;
  Transport* group = r.group;
  if (pushPull || (mixes && world_.rank() == 0))
    alone = std::make_unique<PrefixTransport>(world_, 1);
  if (pushPull) group = alone.get();
  double own = -1;
  if (mixes && world_.rank() == 0) {
    own = compute
              .evaluate(r.fullTestSet, *alone,
                        {config_.allreduce, ReduceOp::kSum, r.evalTag, WirePrecision::kFloat32,
                         r.allreduceSelector.get()},
                        runLocal)
              .accuracy;
  }
  std::vector<float> mine;
  if (mixes && r.sync->mode() == SyncMode::kPushPull) {
    r.lastConsensus = consensusDistance(*r.group, params,
                                        {config_.allreduce, ReduceOp::kSum, r.consensusTag,
                                         WirePrecision::kFloat32, r.allreduceSelector.get()});
  }
  if (mixes) {
    const std::vector<float> average =
        averageModel(*r.group, params,
                     {config_.allreduce, ReduceOp::kAverage, r.consensusTag,
                      WirePrecision::kFloat32, r.allreduceSelector.get()});
    mine.assign(params.begin(), params.end());
    std::copy(average.begin(), average.end(), params.begin());
  }
  const EvalResult e = compute.evaluate(r.testShard, *group,
                                        {config_.allreduce, ReduceOp::kSum, r.evalTag,
                                         WirePrecision::kFloat32, r.allreduceSelector.get()},
                                        runLocal);
  if (mixes) std::copy(mine.begin(), mine.end(), params.begin());
  r.meter->endEval();
  r.lastEval = iteration;
  r.lastTest = e.accuracy;
  r.result.finalAccuracy = e.accuracy;
  r.result.finalLoss = e.loss;
  r.result.finalOwnAccuracy = own;
  const double target = config_.given.targetAccuracy;
  if (target > 0 && r.result.timeToTarget < 0 && e.accuracy >= target) {
    r.result.timeToTarget = r.meter->trainTime();
    r.result.iterationsToTarget = iteration;
  }
  if (recorder_) {
    MetricsRecord record = r.meter->record("eval", iteration, r.epochsDone(iteration));
    record.loss = e.loss;
    record.accuracy = e.accuracy;
    record.ownAccuracy = r.apart && r.exchange->mixesModels() ? e.accuracy : own;
    if (mixes && r.sync->mode() == SyncMode::kPushPull && compute.computesValues())
      record.consensusDistance = r.lastConsensus;
    recorder_->record(record);
  }
}

void RankTrainer::logIteration(Run& r, int64_t iteration, double lr) {
  const bool line = iteration % r.logEvery == 0 || iteration == r.total;
  const bool mixes = r.exchange->mixesModels() && !r.apart;
  if (line && mixes) {
    r.meter->beginEval();
    r.lastConsensus = consensusDistance(*r.group, r.compute->parameters(),
                                        {config_.allreduce, ReduceOp::kSum, r.consensusTag,
                                         WirePrecision::kFloat32, r.allreduceSelector.get()});
    r.meter->endEval();
  }
  if (!recorder_) return;
  if (line) {
    MetricsRecord record = r.meter->record("train", iteration, r.epochsDone(iteration));
    record.lr = lr;
    if (!r.compute->computesValues()) {  // nominal: no losses (written as null)
      record.loss = record.accuracy = std::numeric_limits<double>::quiet_NaN();
    }
    if (mixes && r.compute->computesValues()) record.consensusDistance = r.lastConsensus;
    if (r.guard && r.guard->policy() == NonFinitePolicy::kSkip) {
      record.skippedSteps = r.guard->skipped();
    }
    recorder_->record(record);
  }
  if (!r.compute->computesValues()) {
    recorder_->progress(fmt::format("timing-only  iter {}/{}  sim {:.3f} s  wall {:.1f} s",
                                    iteration, r.total, r.meter->trainTime(), r.meter->wallTime()),
                        false);
    return;
  }
  const int64_t epochs = config_.given.epochs;
  recorder_->progress(
      fmt::format("epoch {}/{}  iter {}/{}  loss {:.4f}  acc {:.3f}  test {}  {} {:.2f} s  "
                  "wall {:.1f} s",
                  std::min(epochs, int64_t(r.epochsDone(iteration)) + 1), epochs, iteration,
                  r.total, r.meter->windowLoss(), r.meter->windowAccuracy(),
                  r.lastTest < 0 ? std::string("-") : fmt::format("{:.4f}", r.lastTest),
                  config_.mpi ? "time" : "sim", r.meter->trainTime(), r.meter->wallTime()),
      false);
}

}  // namespace tetrad::train
