// LoopState: the worker loop's own part of a checkpoint — its counters, the
// evaluation and time-to-target books, Local SGD's anchor, accum:K's
// gradients since the last step — as bytes, and
// taken from or put back into a run (rank_trainer_checkpoint.cc writes it,
// rank_trainer_checkpoint.cc and rank_trainer_resize.cc read it back).
//
// Thread-safety: free functions on a value type; a Run is its worker's.
#pragma once

#include <cstdint>
#include <vector>

#include "tetrad/core/bytes.h"
#include "tetrad/sync/gradient_accumulator.h"
#include "tetrad/sync/model_anchor.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {

struct LoopState {
  // iteration: of the collective loop, or this worker's local steps under
  // push-pull (whose global iterations, from the servers' count, are `global`).
  int64_t iteration = 0, global = 0, mixSteps = 0, lastEval = -1, skipped = 0;
  double lastTest = -1, lastConsensus = -1;
  RankResult result;
  ModelAnchor anchor;
  GradientAccumulator accumulated;
};

ByteBuffer saveLoop(const LoopState& state);
// ProtocolError when the bytes are not a LoopState.
LoopState loadLoop(ConstBytes bytes);

// The state of `run` after `iteration` iterations (or local steps).
LoopState loopStateOf(const RankTrainer::Run& run, int64_t iteration);
// Puts `state` back into `run`: the loop continues after state.iteration.
void applyLoopState(RankTrainer::Run& run, const LoopState& state);

}  // namespace tetrad::train
