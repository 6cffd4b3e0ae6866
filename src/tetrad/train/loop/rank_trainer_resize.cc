// Elastic resize on resume: a checkpoint written by W workers continued by
// W' != W workers (docs/reliability.md, "Elastic training"). Every worker
// builds its run as a new run of W' workers would, then takes:
//
//   what                         a worker the old run had (rank < W)   an added worker (rank >= W)
//   replica (parameters,         its own                               worker 0's
//     momentum, buffers, noise)
//   compressor states            its own                               worker 0's, adopted: private
//                                                                      buffers zeroed, shared ones
//                                                                      (PowerSGD's Q) kept
//   loop state, meter            its own                               worker 0's (no traffic)
//
// The lost workers' (rank >= W') error-feedback residuals and models are
// dropped. Exchange::loadResized carries what depends on the exchange: an
// all-reduce's and a parameter server's push states follow the rule above,
// gossip's public copies start afresh. The data and the learning rate follow
// the run's batch plan (data/batch_plan.h, resolved before the ranks start:
// ResolvedConfig::batchPlan): --resize-batch global keeps the global batch,
// so an iteration covers the same samples of the epoch's permutation, split
// over W' ranks, and the steps per epoch and the schedule are unchanged;
// per-worker anchors a plan of --batch-size x W' at the checkpoint, which
// takes the rest of the current epoch and then whole epochs of the new batch.
// Under both no sample of the current epoch is repeated or skipped.
//
// A parameter server (ps_resize.h) re-cuts every old worker's shard states
// for the new shards; its update counts and AD-PSGD's step counter are
// rebased to W' updates per iteration (rebaseUpdates in exchange.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {

int64_t RankTrainer::loadResized(Run& r, const CheckpointAt& at) {
  const std::string& folder = config_.given.resume;
  TETRAD_CHECK(globalBatchOf(config_, r.workers) >= r.workers, InvalidArgument,
               "--resume {}: a global batch of {} cannot be split over {} workers", folder,
               globalBatchOf(config_, r.workers), r.workers);
  // accum:K's partial sums are per worker and of the old split: a resize
  // starts at a step.
  const int64_t group = r.sync->microBatchesPerStep();
  TETRAD_CHECK(at.iteration % group == 0 || at.iteration == r.total, InvalidArgument,
               "--resume {}: its checkpoint of iteration {} lies between two steps of --sync {}, "
               "and a resize needs one taken at a step (--checkpoint-every a multiple of {})",
               folder, at.iteration, r.sync->spec(), group);
  CheckpointStore& store = *r.checkpoints;
  const int rank = world_.rank();
  const bool kept = rank < at.workers;
  // The identity the old run wrote: this configuration at its worker count.
  const std::string identity = runIdentity(configToJson(config_, at.workers));
  auto readChecked = [&](int oldRank) {
    const std::string origin = store.pathOf(at.iteration, oldRank);
    CheckpointSections sections = store.readOf(at.iteration, oldRank);
    const std::string mismatch = describeMismatch(sections.getText("identity", origin), identity);
    TETRAD_CHECK(mismatch.empty(), InvalidArgument,
                 "--resume {}: the checkpoint was written by another configuration: {}", folder,
                 mismatch);
    TETRAD_CHECK(sections.getText("world", origin) == worldText(at.workers, oldRank),
                 InvalidArgument, "--resume {}: checkpoint {} is of {}; expected {}", folder,
                 origin, sections.getText("world", origin), worldText(at.workers, oldRank));
    return sections;
  };
  // Worker 0's sections, this worker's own, and (a parameter server) every
  // old worker's: each read once.
  std::vector<CheckpointSections> old(size_t(at.workers));
  const bool every = r.exchange->resizeReadsEveryWorker();
  for (int oldRank = 0; oldRank < at.workers; ++oldRank) {
    if (oldRank == 0 || (kept && oldRank == rank) || every)
      old[size_t(oldRank)] = readChecked(oldRank);
  }
  const int from = kept ? rank : 0;  // whose replica, loop state and meter
  const CheckpointSections& first = old[0];
  const CheckpointSections& mine = old[size_t(from)];
  const std::string firstOrigin = store.pathOf(at.iteration, 0);
  std::string origin = store.pathOf(at.iteration, from);
  try {
    r.compute->loadState(mine.get("replica", origin), origin);
    ResizedState resized;
    resized.oldWorkers = at.workers;
    if (kept) resized.own = mine.get("exchange", origin);
    resized.first = first.get("exchange", firstOrigin);
    for (int oldRank = 0; every && oldRank < at.workers; ++oldRank) {
      resized.every.push_back(
          old[size_t(oldRank)].get("exchange", store.pathOf(at.iteration, oldRank)));
    }
    resized.params = r.compute->parameters();
    // A damaged exchange state may be any worker's (a parameter server reads them all).
    if (every) origin = fmt::format("{} (or another worker's of {})", origin, store.folder());
    r.exchange->loadResized(resized);
    origin = store.pathOf(at.iteration, from);
    loadLoopAndBooks(r, mine, origin, at.iteration, /*asNewRank=*/!kept);
    // The run's resizes so far, and this one.
    nlohmann::json resizes = first.has("resizes")
                                 ? nlohmann::json::parse(first.getText("resizes", firstOrigin),
                                                         nullptr, /*allow_exceptions=*/false)
                                 : nlohmann::json::array();
    TETRAD_CHECK(resizes.is_array(), InvalidArgument, "checkpoint {}: its resizes are not a list",
                 firstOrigin);
    resizes.push_back({{"iteration", at.iteration},
                       {"from", at.workers},
                       {"to", r.workers},
                       {"train_time", r.meter->trainTime()}});
    r.resizes = resizes.dump();
  } catch (const ProtocolError& e) {
    TETRAD_FAIL(InvalidArgument, "checkpoint {} is damaged: {}", origin, e.what());
  }
  r.resizedFrom = at.workers;
  return at.iteration;
}

}  // namespace tetrad::train
