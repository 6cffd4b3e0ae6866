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
  if (!r.guard || r.guard->policy() != NonFinitePolicy::kStop) return false;
  if (!r.exchange->armRider(&r.rider)) return false;
  const bool stop = r.checkpointing && pendingStopSignal(iteration + 1) != 0;
  r.rider.arm(!std::isfinite(loss) || stop);
  return true;
}

void RankTrainer::guardAfterRide(Run& r, int64_t iteration, double loss) {
  TETRAD_CHECK(r.rider.carried, Error,
               "rank {}: the non-finite guard's word was armed but no exchange carried it",
               world_.rank());
  if (!r.rider.anyReported()) return;  // every rank finite, no stop request: no round
  guardStep(r, iteration, loss, r.guard->codeAt(loss, r.rider.firstBad, r.rider.firstBadIsInf));
}

bool RankTrainer::guardStep(Run& r, int64_t iteration, double loss,
                            std::optional<uint32_t> scanned) {
  if (!r.guard) return false;
  const double start = world_.now();
  const std::optional<NonFiniteFinding> finding =
      r.guard->agree(iteration + 1, loss,
                     r.compute->computesValues() ? r.compute->gradients() : std::span<float>(),
                     r.checkpointing && pendingStopSignal(iteration + 1) != 0, scanned);
  r.meter->addComm(world_.now() - start);
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
