// Checkpoints and stop signals in the worker loop (rank_trainer.h,
// checkpoint_store.h, stop_signal.h).
//
// A checkpoint is taken between iterations of a collective loop, when no
// exchange is in flight (the overlapped loop applies its pending update
// first). Under push-pull (ssp, asp, AD-PSGD) it is taken after the same
// local step on every worker: a worker that reaches a checkpoint step waits
// there for the others (the stop agreement), and the exchange takes the
// servers' or passive tasks' state between barriers — a quiescent cut. The
// cut synchronises the workers once per checkpoint, so a push-pull run with
// --checkpoint-every is not the same run as one without; a stopped and
// resumed run equals the uninterrupted one with the same interval.
//
// Each worker writes its own file: the identity of the run, its replica
// (replica.h), its exchange's state (arch/exchange.h), its meter
// (run_meter.h), the loop's state and, on rank 0, how many bytes of
// metrics.jsonl were written. Writing costs no traffic; taking the
// exchange's state and writing are left out of training time and traffic
// like an evaluation, and so is a collective run's stop agreement (a
// push-pull run's wait at the cut counts: it is what the cut costs).
//
// A resumed run builds everything as a new run would (the same tags, plan
// and set-up), then replaces each piece's state with the checkpoint's,
// brings the simulated clock back to the instant the checkpoint was taken
// and continues the loop from the iteration after it.
#include <fmt/format.h>

#include <array>
#include <cstring>
#include <filesystem>

#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/core/error.h"
#include "tetrad/train/checkpoint/stop_signal.h"
#include "tetrad/train/loop/loop_state.h"
#include "tetrad/train/loop/rank_trainer_run.h"

namespace tetrad::train {
namespace {

constexpr size_t kMaxFolderBytes = 4096;  // PATH_MAX on Linux

ByteBuffer doubleBytes(double value) {
  ByteBuffer bytes;
  bytes.reserve(sizeof(value));
  ByteWriter(bytes).put(value);
  return bytes;
}

// Sleeps until the engine's clock reads `instant` exactly, when it can: a
// single sleep of (instant − now) may end an ulp early or late, and the order
// of events at equal instants (messages arriving at once) would then differ
// from the uninterrupted run's. So: sleep to a microsecond before (longer
// than the engine's precision of 1 ns, below which it rounds sleeps), then
// the rest: that difference is exact, as the two instants are close.
void sleepUntilExactly(Transport& world, double instant) {
  constexpr double kApproach = 1e-6;
  const double now = world.now();
  if (instant <= now) return;
  if (instant - now > 2 * kApproach) world.sleepFor(instant - now - kApproach);
  world.sleepFor(instant - world.now());
}

}  // namespace

void RankTrainer::setUpCheckpoints(Run& r) {
  r.checkpointing = config_.stopsOnSignal || !config_.given.resume.empty();
  if (!r.checkpointing) return;
  // A resumed run continues in its own folder, which every worker knows.
  const std::string& resume = config_.given.resume;
  if (!resume.empty()) {
    r.checkpoints = std::make_unique<CheckpointStore>(resume, world_.rank(), r.workers);
  }
}

bool RankTrainer::openCheckpointStore(Run& r) {
  if (r.checkpoints) return true;
  // The run folder is rank 0's choice (its name may hold a time stamp):
  // every worker learns it from rank 0 at the first checkpoint (so a run
  // that never takes one sends nothing for it), in a buffer of fixed size
  // so that the time it takes does not depend on the folder's name.
  std::array<char, kMaxFolderBytes> buffer{};
  const std::string mine = recorder_ ? recorder_->folder() : "";
  TETRAD_CHECK(mine.size() < buffer.size(), InvalidArgument,
               "run folder {} is longer than {} bytes", mine, buffer.size() - 1);
  std::memcpy(buffer.data(), mine.data(), mine.size());
  broadcast(*r.group, std::as_writable_bytes(std::span(buffer)),
            {BroadcastAlgorithm::kBinomial, 0, r.checkpointTag + kCollectiveTagSpan});
  const std::string folder(buffer.data(), ::strnlen(buffer.data(), buffer.size()));
  if (folder.empty()) return false;  // no run folder (library use without a recorder)
  r.checkpoints = std::make_unique<CheckpointStore>(folder, world_.rank(), r.workers);
  return true;
}

void RankTrainer::saveCheckpoint(Run& r, int64_t iteration) {
  CheckpointSections sections;
  sections.putText("identity", runIdentity(configToJson(config_, r.workers)));
  sections.putText("world", worldText(r.workers, world_.rank()));
  sections.put("replica", r.compute->saveState());
  // Taking the exchange's state may cost traffic and time (servers, passive
  // tasks): not training. The meter's books and the clock after it, with
  // no bracket open: the instant and the totals the loop goes on from.
  r.meter->beginEval();
  sections.put("exchange", r.exchange->saveState());
  r.meter->endEval();
  sections.put("meter", r.meter->saveState());
  sections.put("clock", doubleBytes(world_.now()));
  sections.put("loop", saveLoop(loopStateOf(r, iteration)));
  sections.putText("resizes", r.resizes);
  sections.putText("batch_plan", r.plan.toJson());
  if (r.errorProbe) sections.put("compression error", r.errorProbe->saveState());
  if (recorder_) {
    ByteBuffer bytes;
    bytes.reserve(sizeof(uint64_t));
    ByteWriter(bytes).put(recorder_->metricsBytes());
    sections.put("metrics", std::move(bytes));
  }
  // Writing takes no simulated time, but wall time; under MPI the writer's
  // thread writes while the loop goes on (checkpoint_writer.h).
  r.meter->beginEval();
  if (!r.checkpointWriter) {
    r.checkpointWriter =
        std::make_unique<CheckpointWriter>(*r.checkpoints, world_.simulatedClock());
  }
  r.checkpointWriter->submit(iteration, std::move(sections));
  r.meter->endEval();
}

void RankTrainer::restoreCheckpoint(Run& r) {
  const std::string& folder = config_.given.resume;
  TETRAD_CHECK(r.checkpoints, InvalidArgument, "--resume {}: this run cannot be checkpointed",
               folder);  // resolveConfig() refuses such runs first
  // Every worker loads its own file; a refusal on any worker is then the
  // error of every worker (no worker goes on to wait for a failed one).
  std::string failure;
  int64_t at = -1;
  try {
    at = loadCheckpoint(r);
  } catch (const std::exception& e) {
    failure = e.what();
    if (failure.empty()) failure = "unknown error";
  }
  const auto mine = std::as_bytes(std::span(failure.data(), failure.size()));
  const std::vector<ByteBuffer> failures =
      allgatherBytes(*r.group, mine, CollectiveOptions{r.checkpointTag});
  for (size_t k = 0; k < failures.size(); ++k) {
    if (failures[k].empty()) continue;
    const std::string text(reinterpret_cast<const char*>(failures[k].data()), failures[k].size());
    TETRAD_FAIL(InvalidArgument, "{}", text);
  }
  // The simulated clock back to the instant the checkpoint was taken (set-up
  // and the agreement above took less), then the meter's books on it.
  // A --membership segment resumes at the instant its change ends (later):
  // the time since the checkpoint is lost, and counted as training time.
  const bool churn = config_.resumeAtClock >= 0 && world_.simulatedClock();
  if (world_.simulatedClock()) {
    sleepUntilExactly(world_, churn ? std::max(config_.resumeAtClock, r.resumeClock) : r.resumeClock);
  }
  // A worker an elastic resize added took worker 0's books, without its traffic.
  r.meter->loadState(r.resumeMeter, r.resizedFrom > 0 && world_.rank() >= r.resizedFrom);
  if (churn) r.meter->addLostTime(world_.now() - r.resumeClock);
  // Only now, once every worker accepted its file, is the run folder changed.
  if (recorder_) recorder_->resumeMetricsAt(r.resumeMetricsBytes);
  if (recorder_ && !config_.membershipNote.empty()) {
    recorder_->recordNote("membership", at, r.meter->trainTime(), config_.membershipNote);
  }
  if (recorder_) {
    const std::string resized =
        r.resizedFrom > 0 ? fmt::format(" on {} workers (the checkpoint's: {})", r.workers,
                                        r.resizedFrom)
                          : "";
    std::fprintf(stderr, "tetrad: resuming %s from iteration %lld%s\n", folder.c_str(),
                 static_cast<long long>(at), resized.c_str());
    std::fflush(stderr);
  }
}

int64_t RankTrainer::loadCheckpoint(Run& r) {
  const std::string& folder = config_.given.resume;
  CheckpointStore& store = *r.checkpoints;
  const std::string identity = runIdentity(configToJson(config_, r.workers));
  auto checkIdentity = [&](const CheckpointSections& sections, const std::string& origin) {
    const std::string mismatch = describeMismatch(sections.getText("identity", origin), identity);
    TETRAD_CHECK(mismatch.empty(), InvalidArgument,
                 "--resume {}: the checkpoint was written by another configuration: {}", folder,
                 mismatch);
  };
  const CheckpointAt found = store.latestCompleteOfAnySize();
  if (found.iteration >= 0 && found.workers != r.workers) return loadResized(r, found);
  const int64_t at = found.iteration;
  if (at < 0) {
    // Incomplete for this run: of another world size, or cut short. Rank 0's
    // file of the newest checkpoint, when there is one, says which.
    const int64_t newest = store.newest();
    const std::string first = newest >= 0 ? store.pathOf(newest, 0) : "";
    if (!first.empty() && std::filesystem::exists(first)) {
      checkIdentity(readCheckpointFile(first), first);
    }
    TETRAD_FAIL(InvalidArgument, "--resume {}: no complete checkpoint in {}", folder,
                store.folder());
  }
  const std::string origin = store.pathOf(at, world_.rank());
  const CheckpointSections sections = store.read(at);
  checkIdentity(sections, origin);
  const std::string world = worldText(r.workers, world_.rank());
  TETRAD_CHECK(sections.getText("world", origin) == world, InvalidArgument,
               "--resume {}: checkpoint {} is of {}; this is {}", folder, origin,
               sections.getText("world", origin), world);
  try {
    r.compute->loadState(sections.get("replica", origin), origin);
    r.exchange->loadState(sections.get("exchange", origin));
    loadLoopAndBooks(r, sections, origin, at, /*asNewRank=*/false);
    if (sections.has("resizes")) r.resizes = sections.getText("resizes", origin);
  } catch (const ProtocolError& e) {
    TETRAD_FAIL(InvalidArgument, "checkpoint {} is damaged: {}", origin, e.what());
  }
  return at;
}

void RankTrainer::loadLoopAndBooks(Run& r, const CheckpointSections& sections,
                                   const std::string& origin, int64_t at, bool asNewRank) {
  const LoopState loop = loadLoop(sections.get("loop", origin));
  TETRAD_CHECK(loop.iteration == at && loop.iteration <= r.total, InvalidArgument,
               "checkpoint {} is of iteration {}; the run has {}", origin, loop.iteration, r.total);
  // Read (and checked) here; applied by restoreCheckpoint() once every
  // worker has loaded its file.
  ByteReader clock(sections.get("clock", origin));
  r.resumeClock = clock.get<double>("clock");
  const ConstBytes meter = sections.get("meter", origin);
  r.resumeMeter.assign(meter.begin(), meter.end());
  r.meter->loadState(r.resumeMeter, asNewRank);
  applyLoopState(r, loop);
  if (r.errorProbe) r.errorProbe->loadState(sections.get("compression error", origin));
  if (recorder_) {
    ByteReader metrics(sections.get("metrics", origin));
    r.resumeMetricsBytes = metrics.get<uint64_t>("metrics bytes");
  }
}

bool RankTrainer::stopRequested(int64_t iteration) const {
  if (pendingStopSignal(iteration) != 0) return true;
  return config_.stopAtClock > 0 && world_.now() >= config_.stopAtClock;
}

bool RankTrainer::checkpointDue(const Run& r, int64_t iteration, bool epochEnd) const {
  const int64_t every = config_.given.checkpointEvery;
  return r.checkpointing && every > 0 && (iteration % every == 0 || epochEnd) &&
         iteration < r.total;
}

bool RankTrainer::endIteration(Run& r, int64_t iteration, bool epochEnd) {
  if (!r.checkpointing) return false;
  const bool due = checkpointDue(r, iteration, epochEnd);
  const bool pushPull = r.sync->mode() == SyncMode::kPushPull;
  bool stop = false;
  if (r.guard && !pushPull && !r.stopNotAgreed) {
    stop = r.guard->stopAgreed();  // agreed during this iteration's check
  } else if (due) {
    // Without the guard's per-iteration agreement (it is off, or under
    // push-pull each worker checks alone), a signal is acted on at the next
    // checkpoint. In a collective run the agreement is not training. Under
    // push-pull it is where a worker waits for the others to reach the cut:
    // what the checkpoint costs the run in time, so it counts (as
    // communication), while taking the state and writing do not.
    const double start = world_.now();
    if (!pushPull) r.meter->beginEval();
    stop = agreeOnStop(*r.group, r.guardTag, stopRequested(iteration));
    if (!pushPull) r.meter->endEval();
    if (pushPull) r.meter->addComm(world_.now() - start);
  }
  // A --membership segment's end at an iteration: every worker knows it, so
  // it needs no agreement (churn_run.cc).
  if (config_.stopAfterIteration > 0 && iteration == config_.stopAfterIteration) stop = true;
  bool written = false;
  if (due || stop) {
    // Neither learning the folder nor writing is training (saveCheckpoint
    // brackets its own parts, so that the meter's books are saved with no
    // bracket open and resume exactly).
    r.meter->beginEval();
    written = openCheckpointStore(r);
    r.meter->endEval();
    if (written) saveCheckpoint(r, iteration);
  }
  if (!stop) return false;
  // The checkpoint the message names is on disk before the run reports it.
  if (r.checkpointWriter) r.checkpointWriter->flush();
  r.result.status = RunStatus::kInterrupted;
  // Push-pull: the cut is after this local step of every worker.
  const std::string when = pushPull ? fmt::format("local step {} of every worker", iteration)
                                    : fmt::format("iteration {}", iteration);
  r.result.error =
      written ? fmt::format(
                    "stopped by a signal after {}; checkpoint written in {} (continue with "
                    "--resume {} and the same flags)",
                    when, r.checkpoints->folder(), r.checkpoints->runFolder())
              : fmt::format("stopped by a signal after {} (no run folder: no checkpoint written)",
                            when);
  return true;
}

}  // namespace tetrad::train
