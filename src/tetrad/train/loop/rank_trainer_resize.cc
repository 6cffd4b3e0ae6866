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
// dropped. An exchange whose state depends on the worker count (a parameter
// server's clocks and pull states, gossip's public copies) starts afresh
// (Exchange::loadResized). The data and the learning rate follow the global
// batch, which is kept (ResolvedConfig::batchWorkers): an iteration still
// covers the same samples of the epoch's permutation, split over W' ranks,
// so no sample of the current epoch is repeated or skipped, and the steps
// per epoch and the schedule are unchanged.
//
// Push-pull runs (ssp, asp, AD-PSGD) are refused: their servers' weights
// and clocks would have to be re-sharded (not yet supported).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {

int64_t RankTrainer::loadResized(Run& r, const CheckpointAt& at) {
  const std::string& folder = config_.given.resume;
  TETRAD_CHECK(r.sync->mode() != SyncMode::kPushPull, Unsupported,
               "--resume {}: the checkpoint is of {} workers and this run has {}; resizing a "
               "push-pull run (--sync {}) is not supported yet: resume it on {} workers",
               folder, at.workers, r.workers, config_.sync, at.workers);
  TETRAD_CHECK(globalBatchOf(config_, r.workers) >= r.workers, InvalidArgument,
               "--resume {}: a global batch of {} cannot be split over {} workers", folder,
               globalBatchOf(config_, r.workers), r.workers);
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
  const CheckpointSections first = readChecked(0);
  const CheckpointSections own = kept && rank != 0 ? readChecked(rank) : CheckpointSections();
  const CheckpointSections& mine = kept && rank != 0 ? own : first;
  const std::string origin = store.pathOf(at.iteration, kept ? rank : 0);
  try {
    r.compute->loadState(mine.get("replica", origin), origin);
    r.exchange->loadResized(kept ? mine.get("exchange", origin) : ConstBytes(),
                            first.get("exchange", origin), at.workers);
    loadLoopAndBooks(r, mine, origin, at.iteration, /*asNewRank=*/!kept);
    // The run's resizes so far, and this one.
    nlohmann::json resizes =
        first.has("resizes") ? nlohmann::json::parse(first.getText("resizes", origin), nullptr,
                                                     /*allow_exceptions=*/false)
                             : nlohmann::json::array();
    TETRAD_CHECK(resizes.is_array(), InvalidArgument, "checkpoint {}: its resizes are not a list",
                 origin);
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
