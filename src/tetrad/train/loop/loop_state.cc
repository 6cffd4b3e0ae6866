// LoopState as bytes (loop_state.h): counters, then values, then the anchor,
// then the accumulated gradients.
#include "tetrad/train/loop/loop_state.h"

namespace tetrad::train {

ByteBuffer saveLoop(const LoopState& s) {
  ByteBuffer bytes;
  bytes.reserve(128 + s.anchor.size() * sizeof(float));
  ByteWriter out(bytes);
  for (int64_t value : {s.iteration, s.global, s.mixSteps, s.lastEval, s.skipped,
                        s.result.iterationsToTarget, s.result.skippedSteps}) {
    out.put(value);
  }
  for (double value :
       {s.lastTest, s.lastConsensus, s.result.finalAccuracy, s.result.finalLoss,
        s.result.finalOwnAccuracy, s.result.consensusDistance, s.result.timeToTarget}) {
    out.put(value);
  }
  s.anchor.save(out);
  s.accumulated.save(out);
  return bytes;
}

LoopState loadLoop(ConstBytes bytes) {
  ByteReader in(bytes);
  LoopState s;
  for (int64_t* value : {&s.iteration, &s.global, &s.mixSteps, &s.lastEval, &s.skipped,
                         &s.result.iterationsToTarget, &s.result.skippedSteps}) {
    *value = in.get<int64_t>("loop counter");
  }
  for (double* value :
       {&s.lastTest, &s.lastConsensus, &s.result.finalAccuracy, &s.result.finalLoss,
        &s.result.finalOwnAccuracy, &s.result.consensusDistance, &s.result.timeToTarget}) {
    *value = in.get<double>("loop value");
  }
  s.anchor.load(in);
  if (in.remaining() > 0) s.accumulated.load(in);  // none in checkpoints before accum:K
  in.expectEnd("loop state");
  return s;
}

LoopState loopStateOf(const RankTrainer::Run& r, int64_t iteration) {
  LoopState loop;
  loop.iteration = iteration;
  loop.global = r.global;
  loop.mixSteps = r.mixSteps;
  loop.lastEval = r.lastEval;
  loop.skipped = r.guard ? r.guard->skipped() : 0;
  loop.lastTest = r.lastTest;
  loop.lastConsensus = r.lastConsensus;
  loop.result = r.result;
  loop.anchor = r.anchor;
  loop.accumulated = r.accumulated;
  return loop;
}

void applyLoopState(RankTrainer::Run& r, const LoopState& loop) {
  r.firstIteration = loop.iteration;
  r.global = loop.global;
  r.result.iterations = r.sync->mode() == SyncMode::kPushPull ? loop.global : loop.iteration;
  r.mixSteps = loop.mixSteps;
  r.lastEval = loop.lastEval;
  r.lastTest = loop.lastTest;
  r.lastConsensus = loop.lastConsensus;
  r.result.finalAccuracy = loop.result.finalAccuracy;
  r.result.finalLoss = loop.result.finalLoss;
  r.result.finalOwnAccuracy = loop.result.finalOwnAccuracy;
  r.result.consensusDistance = loop.result.consensusDistance;
  r.result.timeToTarget = loop.result.timeToTarget;
  r.result.iterationsToTarget = loop.result.iterationsToTarget;
  r.result.skippedSteps = loop.result.skippedSteps;
  if (r.guard) r.guard->restoreSkipped(loop.skipped);
  r.anchor = loop.anchor;
  r.accumulated = loop.accumulated;
}

}  // namespace tetrad::train
