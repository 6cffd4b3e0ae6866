// The non-finite guard in the worker loop (rank_trainer.h, nonfinite_guard.h).
// Cost per collective iteration: ⌈log2 W⌉·α + 4(W-1)·β (one float per worker,
// recursive-doubling all-gather), counted as communication time.
#include <cmath>
#include <cstdio>

#include "tetrad/core/error.h"
#include "tetrad/train/checkpoint/stop_signal.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {

bool RankTrainer::armGuardRider(Run& r, int64_t iteration, double loss) {
  r.stopNotAgreed = false;
  if (!r.guard || r.guard->policy() != NonFinitePolicy::kStop) return false;
  bool carriesStop = r.checkpointing;
  if (!r.exchange->armRider(&r.rider, carriesStop)) {
    // A summable exchange carries non-finiteness only: a run that can stop
    // on a signal agrees on stop requests in the guard's own round, every
    // kStopAgreementEvery iterations (nonfinite_guard.h).
    if (!carriesStop || (iteration + 1) % kStopAgreementEvery == 0) return false;
    if (!r.exchange->armRider(&r.rider, false)) return false;
    carriesStop = false;
  }
  const bool stop = carriesStop && stopRequested(iteration + 1);
  r.rider.arm(!std::isfinite(loss) || stop);
  // Stop requests left out: agreed at the next checkpoint instead (endIteration()).
  r.stopNotAgreed = r.checkpointing && !carriesStop;
  return true;
}

void RankTrainer::guardAfterRide(Run& r, int64_t iteration, double loss) {
  TETRAD_CHECK(r.rider.carried, Error,
               "rank {}: the non-finite guard's word was armed but no exchange carried it",
               world_.rank());
  if (!r.rider.anyReported()) return;  // every rank finite, no stop request: no round
  // The round runs only at an event — a stop or a divergence — after which
  // the run ends: not training (its time and traffic are left out, as an
  // evaluation's), so a run stopped by a signal and resumed keeps the books
  // of an uninterrupted one.
  r.meter->beginEval();
  guardStep(r, iteration, loss, r.guard->codeAt(loss, r.rider.firstBad, r.rider.firstBadIsInf),
            /*counted=*/false);
  r.meter->endEval();
  r.stopNotAgreed = false;  // the round carried every rank's stop request
}

bool RankTrainer::guardStep(Run& r, int64_t iteration, double loss, std::optional<uint32_t> scanned,
                            bool counted) {
  if (!r.guard) return false;
  const double start = world_.now();
  const std::optional<NonFiniteFinding> finding =
      r.guard->agree(iteration + 1, loss,
                     r.compute->computesValues() ? r.compute->gradients() : std::span<float>(),
                     r.checkpointing && stopRequested(iteration + 1), scanned);
  if (counted) r.meter->addComm(world_.now() - start);
  r.timeline->add(TimelineTrack::kCommunication, "non-finite check", "comm", start, world_.now(),
                  iteration);
  if (!finding) return false;
  // Iterations are numbered from 1, as in metrics.jsonl.
  const std::string what = finding->describe(iteration + 1);
  if (r.guard->policy() == NonFinitePolicy::kSkip) {
    r.guard->countSkip();
    r.result.skippedSteps = r.guard->skipped();
    if (recorder_) {
      std::fprintf(stderr, "tetrad: %s: step skipped on every worker (%lld so far)\n", what.c_str(),
                   static_cast<long long>(r.guard->skipped()));
      std::fflush(stderr);
    }
    return true;
  }
  r.result.status = RunStatus::kDiverged;
  r.result.error = what + ": stopped on every rank (--on-nonfinite stop)";
  return true;
}

void RankTrainer::guardPushPull(Run& r, int64_t iteration, double loss) {
  if (!r.guard) return;
  const std::optional<NonFiniteFinding> finding = r.guard->checkLocal(
      iteration + 1, loss,
      r.compute->computesValues() ? r.compute->gradients() : std::span<float>());
  if (!finding) return;
  // No common step to skip under push-pull (resolveConfig refuses skip): this
  // worker fails before pushing, and the launcher stops the other ranks.
  TETRAD_FAIL(Error, "{} (about global iteration {}): not pushed; stopping the run",
              finding->describe(iteration + 1), iteration + 1);
}

}  // namespace tetrad::train
