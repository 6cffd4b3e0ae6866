// NonFiniteGuard: catches a NaN or an Inf in the loss or a gradient at the
// iteration it appears, before anything goes on the wire, and makes every
// worker take the same decision (--on-nonfinite stop|skip).
//
// Per iteration, after forward/backward and before the gradient exchange,
// each worker scans its loss and its flat gradient buffer (one pass, a
// multiply-add per float) and the workers all-gather one float each: 0 when
// finite, else a code naming the first non-finite tensor (the loss, or the
// parameter slot of FlatModel::slots()) and whether it is NaN or Inf. Every
// worker reads the same codes, so every worker reports the lowest rank that
// found one, with the iteration and the tensor, and takes the same decision:
//   stop  the run ends before the exchange and the optimizer step (the
//         parameters stay the last finite ones); summary.json records status
//         "diverged" and the command exits non-zero with that one line;
//   skip  no exchange and no optimizer step for that iteration on any worker
//         (as AMP's loss scaler skips a step); the skips are counted.
// Cost of skip, and of stop where nothing carries its word: one
// recursive-doubling all-gather of one float per worker, ⌈log2 W⌉·α +
// 4(W-1)·β per iteration (+2α when W is not a power of two), counted as
// communication time and traffic like any exchange; "stop:K" runs it every
// K iterations only (a non-finite value is then caught up to K − 1
// iterations late, the parameters of the last K − 1 steps may be lost).
//
// stop rides on the exchange where it can (compress/guard_rider.h): on an
// iteration whose gradients go through an all-reduce exchange with a
// summable or gather compressor, outside overlapped schedules, each worker
// arms a word (1: a non-finite loss or gradient, or a stop request) that the
// exchange carries to everyone as one bucket element or a packet header
// field; the round above runs only when the sum is not zero, to name rank,
// tensor and kind. (A summable exchange carries non-finiteness but not a
// stop request: a run that stops on signals agrees on them at its next
// checkpoint, and in the round every kStopAgreementEvery iterations.) A finite iteration then sends
// no message of its own. The decision is taken after the exchange and before the optimizer step, so
// the parameters still stay the last finite ones (the compressor's state,
// e.g. an error-feedback residual, has seen the non-finite values; the run
// stops). skip must decide before anything is exchanged: it keeps its round.
//
// Test hook: TETRAD_TEST_NONFINITE=RANK:ITERATION[:inf] writes a NaN (or
// +Inf) into the first gradient of worker RANK at ITERATION (numbered from
// 1, as in metrics.jsonl) before the check, as a diverging step would.
//
// Push-pull runs (ssp, asp) have no common iteration: checkLocal() checks
// this worker's values only, before its update is pushed; with stop the
// worker fails (the launcher stops the other ranks), with skip it skips
// that local step.
//
// Thread-safety: one guard per worker, used by its worker loop only.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/core/error.h"
#include "tetrad/sched/bucketing.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

enum class NonFinitePolicy { kStop, kSkip, kOff };

// Where stop's word rides as the reduced bucket's non-finiteness (summable
// compressors), which cannot carry a stop request, a run that stops on a
// signal agrees on stop requests in the guard's round every this many
// iterations (a signal is acted on within as many).
inline constexpr int64_t kStopAgreementEvery = 16;

// "stop", "stop:K", "skip" or "off" (no check and no agreement: timing
// studies that must not pay its all-gather); InvalidArgument naming
// --on-nonfinite otherwise.
NonFinitePolicy parseNonFinitePolicy(std::string_view text);
// K of "stop:K" (iterations between the guard's own rounds where its word
// cannot ride on the exchange, below), 1 for every other policy;
// InvalidArgument for K < 1 or not an integer.
int64_t parseNonFiniteEvery(std::string_view text);
std::string toString(NonFinitePolicy policy);

// The first non-finite value one worker found.
struct NonFiniteFinding {
  int rank = -1;
  std::string tensor;  // "loss" or the parameter's name
  bool infinite = false;
  // "non-finite gradient (NaN) on rank 2 at iteration 17 in tensor fc1.weight"
  std::string describe(int64_t iteration) const;
};

// 0 when `loss` and `gradients` are finite, else 1 + the index of the first
// non-finite tensor (0: the loss; 1 + s: slot s) times 2, plus 1 for Inf.
uint32_t nonFiniteCode(double loss, std::span<const float> gradients,
                       std::span<const ParameterSlot> slots);

class NonFiniteGuard {
 public:
  // `workers`: the transport of the W workers; tags [tag, tag +
  // kCollectiveTagSpan) are the guard's own.
  NonFiniteGuard(Transport& workers, Tag tag, std::vector<ParameterSlot> slots,
                 NonFinitePolicy policy, int64_t every = 1);

  NonFinitePolicy policy() const { return policy_; }
  // stop:K's K (1 otherwise): does iteration `iteration` (from 1) run the
  // guard's own round when nothing carries its word?
  bool roundDue(int64_t iteration) const { return every_ <= 1 || iteration % every_ == 0; }
  // The test hook (below) before a ridden exchange: true when it wrote.
  bool injectForTest(int64_t iteration, std::span<float> gradients) const {
    return inject(iteration, gradients);
  }
  // nonFiniteCode() of a loss and of the first non-finite gradient element
  // at flat offset `firstBad` (-1: none), as a ridden exchange found it.
  uint32_t codeAt(double loss, int64_t firstBad, bool isInf) const;
  // Collective (every worker, every iteration): the lowest rank's finding,
  // or nothing when every worker's values are finite.
  // `iteration` counts from 1.
  // `stopRequested`: this worker saw a stop signal (stop_signal.h); the
  // request rides on the same float (code × 2 + 1), and stopAgreed() then
  // tells every worker alike whether any worker asked.
  // `scanned`: scan(loss, gradients) of these values, where the caller
  // already ran it (on the rank's pool thread, with the pass); else agree()
  // scans them.
  std::optional<NonFiniteFinding> agree(int64_t iteration, double loss, std::span<float> gradients,
                                        bool stopRequested = false,
                                        std::optional<uint32_t> scanned = std::nullopt);
  // nonFiniteCode() of this worker's values: reads only the guard's slot
  // table, so any thread may call it (a simulated rank's pool thread does,
  // right after its pass).
  uint32_t scan(double loss, std::span<const float> gradients) const {
    return nonFiniteCode(loss, gradients, slots_);
  }
  bool stopAgreed() const { return stopAgreed_; }
  // This worker only (push-pull).
  std::optional<NonFiniteFinding> checkLocal(int64_t iteration, double loss,
                                             std::span<float> gradients);

  void countSkip() { ++skipped_; }
  void restoreSkipped(int64_t skipped) { skipped_ = skipped; }  // checkpoints
  int64_t skipped() const { return skipped_; }

 private:
  NonFiniteFinding findingOf(int rank, uint32_t code) const;
  // True when it wrote the test hook's value.
  bool inject(int64_t iteration, std::span<float> gradients) const;

  Transport& workers_;
  Tag tag_;
  std::vector<ParameterSlot> slots_;
  NonFinitePolicy policy_;
  int64_t every_ = 1;
  int64_t skipped_ = 0;
  bool stopAgreed_ = false;
  int injectRank_ = -1;  // test hook (see above)
  int64_t injectIteration_ = -1;
  bool injectInf_ = false;
  mutable int64_t injectedAt_ = -1;  // the iteration the hook last wrote
};

// Without the guard (--on-nonfinite off): the workers agree whether any of
// them asked to stop (one float each, the same all-gather); collective.
bool agreeOnStop(Transport& workers, Tag tag, bool stopRequested);

}  // namespace tetrad::train
