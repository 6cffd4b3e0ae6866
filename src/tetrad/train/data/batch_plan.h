// Batch plan: how a run's iterations walk the epochs' sample permutations —
// which epoch an iteration lies in, at which position of that epoch's
// permutation it starts, and how many samples (over all workers) it takes.
//
// A run that keeps its batch walks a uniform grid: iteration n is step
// n mod S of epoch n / S (S = stepsPerEpoch). An elastic resize that keeps
// the per-worker batch (--resize-batch per-worker, docs/reliability.md)
// changes the global batch B at the checkpoint's iteration k0, possibly in
// the middle of an epoch: the plan is then anchored there,
//
//   iteration k0 + d, d < L   epoch e0, position p0 + d·B'  (the rest of the
//                             epoch the old run was in: L = ⌊(N − p0)/B'⌋)
//   iteration k0 + L + m      epoch e0 + 1 + m / S', position (m mod S')·B'
//
// so the positions [p0, p0 + L·B') of epoch e0 are taken once each, none of
// [0, p0) again (the old run took them), and later epochs are whole grids of
// the new batch. A further resize anchors again where it happens. A plan is
// the run's single answer to "epoch boundary?", "how many epochs so far?",
// "how many iterations in all?" and "which step of the learning-rate grid?".
//
// Plain value, saved in every checkpoint (section "batch_plan"); any thread.
#pragma once

#include <cstdint>
#include <string>

namespace tetrad::train {

// Where one iteration lies: its epoch and its first position in that
// epoch's permutation (the iteration takes [position, position + B)).
struct EpochPlace {
  int64_t epoch = 0;
  int64_t position = 0;
};

struct BatchPlan {
  int64_t firstIteration = 0;     // k0: the anchor (0 for a run's own grid)
  int64_t epoch = 0;              // e0: the epoch iteration k0 lies in
  int64_t position = 0;           // p0: its first position in that epoch
  int64_t samplesBefore = 0;      // samples all iterations before k0 took
  int64_t globalBatch = 0;        // B: samples per iteration from k0 on; 0: not resolved
  int64_t stepsPerEpoch = 0;      // S: iterations of a whole epoch at B
  int64_t stepsInFirstEpoch = 0;  // L: iterations from k0 to the end of epoch e0

  bool resolved() const { return globalBatch > 0; }

  // Iteration `iteration` (>= firstIteration; InvalidArgument otherwise).
  EpochPlace at(int64_t iteration) const;
  // True when iteration `iteration` begins an epoch (position 0): after
  // `iteration` completed iterations an epoch has just ended.
  bool startsEpoch(int64_t iteration) const { return at(iteration).position == 0; }
  // Epochs done after `iteration` completed iterations (fractional).
  double epochsAt(int64_t iteration) const;
  // The iteration's step on the grid of whole epochs at this batch
  // (epoch · S + position / B): the learning-rate schedule's step.
  int64_t gridStep(int64_t iteration) const;
  // Samples all workers took in the first `iteration` iterations.
  int64_t samplesAt(int64_t iteration) const;
  // The iteration count at which `epochs` epochs are complete (the run's
  // total; post-local SGD's Tep switch); firstIteration when they were
  // complete before it.
  int64_t iterationsFor(int64_t epochs) const;

  std::string toJson() const;
};

// A run's own uniform grid of `steps` iterations per epoch of `globalBatch`.
BatchPlan uniformBatchPlan(int64_t globalBatch, int64_t steps);

// The plan anchored at `iteration` of `old`, from which every iteration
// takes `globalBatch` samples of a training set of `samples`. InvalidArgument
// when one such batch does not fit in the training set.
BatchPlan resizedBatchPlan(const BatchPlan& old, int64_t iteration, int64_t globalBatch,
                           size_t samples);

// A plan saved by toJson(); `origin` names the file for errors
// (InvalidArgument naming the field).
BatchPlan batchPlanFromJson(const std::string& text, const std::string& origin);

}  // namespace tetrad::train
