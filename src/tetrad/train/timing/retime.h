// Retiming: a finished run of a synchronous method replayed on another
// network (`tetrad retime RUN --cluster SPEC`, docs/training.md).
//
// For a method whose trajectory does not depend on timing — BSP, Local and
// post-local SGD, D-PSGD, CHOCO: every collective sync policy — the
// iterations a run takes, and the one at which it first reaches its target
// accuracy, are the same on any network of the same worker count. Only the
// time changes, and the timing-only run (timing_trainer.h: the worker loop on a nominal replica)
// gives that time exactly: it sends the real run's messages (exchange, non-finite guard,
// evaluations) at the real run's points without computing anything. So a
// retimed run is the original run's configuration (config.json) with the
// cluster (and optionally the network model or compute model) replaced, run
// timing-only for the original's iterations; its time to target is its
// training time at the evaluation where the original first reached the
// target.
//
// Refused, each with one InvalidArgument line naming the rule: asynchronous
// runs (ssp, asp, AD-PSGD: their trajectory depends on timing), runs whose
// compute model is `measured` unless a compute model is given (their times
// came from this machine's CPU), interrupted runs, folders without
// config.json or metrics, clusters fixing another number of hosts than the
// run's ranks, and whatever timing-only itself refuses (overlapping
// schedules, data-dependent packet sizes), with its reason.
//
// No LibTorch include. Thread-safety: pure functions over run folders; one
// call at a time (the simulation owns the process while it runs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tetrad/train/train_config.h"

namespace tetrad::train {

struct RetimeRequest {
  std::string run;       // the run folder (config.json, summary.json, metrics.jsonl)
  std::string cluster;   // "sim:..." (required)
  std::string netModel;  // "": the run's; else lv08 | cm02 | profile:FILE
  std::string compute;   // "": the run's; else fixed:D | flops:G
  std::string out;       // keep the timing-only run here; "": a temporary folder, removed
  // Write `out` as a run folder of the original method on the new network
  // (retimed_run_folder.h), the timing-only run in out/timing-only/.
  bool asRun = false;
  // Replay only up to the iteration at which the original first reached its
  // target (the map's time to target needs no more): the time to target is
  // the full replay's to the bit, the time per iteration is over those
  // iterations. InvalidArgument when the original never reached its target;
  // not with asRun (a run folder holds the whole run).
  bool toTarget = false;
  // "": the run's --codec-cost, where a measured charge (which a timing-only
  // replay cannot measure) becomes the host-CPU profile; else as
  // tetrad train's --codec-cost (train/loop/codec_charge.h).
  std::string codecCost;
};

// One run's timing figures, as summary.json names them.
struct RunTiming {
  std::string cluster, netModel, compute;
  int64_t iterations = 0;
  double trainTime = 0;         // simulated seconds, evaluation excluded
  double timePerIteration = 0;  // trainTime / iterations
  double timeToTarget = -1;     // -1: no target, or never reached
  int64_t iterationsToTarget = -1;
  double commShare = 0;  // workers' mean communication time / trainTime
  std::vector<uint64_t> bytesSentPerRank;
};

struct RetimeResult {
  std::string run;
  std::string method;  // "bsp allreduce:ring topk:0.01,ef sched none"
  int workers = 0;
  RunTiming original;  // from the run's summary.json
  RunTiming retimed;
  std::string folder;  // the timing-only run ("" when removed)

  std::string toJson() const;  // one object: the retimed figures, "original": {...}
  std::string toText() const;  // a table: original beside retimed
};

// The run's TrainConfig from its config.json (the flags it resolved to);
// InvalidArgument naming the folder when it is missing or unreadable.
TrainConfig configOfRun(const std::string& folder);

// Throws InvalidArgument ("retime: ...") on the refusals above.
RetimeResult retimeRun(const RetimeRequest& request);

// retimeRun() with its refusals as values, for callers that replay many
// runs (tetrad retime --batch, the maps): a run or a network the replay
// refuses (InvalidArgument, Unsupported) gives `refusal`, its message.
struct RetimeOutcome {
  double timeToTarget = -1;  // seconds; -1: never reached (as RetimedTimes)
  double timePerIteration = 0;
  std::string refusal;  // "" when replayed
};
RetimeOutcome retimeOrRefusal(const RetimeRequest& request);

}  // namespace tetrad::train
