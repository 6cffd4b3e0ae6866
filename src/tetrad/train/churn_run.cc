// A simulated run with --membership (membership.h), in segments: each runs
// to its event's iteration (or time), where every worker writes a
// checkpoint, and the next resumes from a checkpoint on the new worker count
// (an elastic resize, loop/rank_trainer_resize.cc) at the simulated instant
// the change ends:
//   leave   from the newest checkpoint before the event (the stop's own
//           checkpoint is removed: a crashed worker writes none), at the
//           event's instant + --churn-restart; with
//           --churn-emergency-checkpoint (methods whose survivors all hold
//           the whole run) from the event's checkpoint, which the survivors
//           write, so no iteration is done again;
//   join    from the event's checkpoint, at its instant + --churn-restart.
// The time from the checkpoint resumed from to that instant is lost; the
// resumed run counts it as training time, and summary.json's "membership"
// lists every change with what it cost.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/checkpoint/checkpoint_store.h"
#include "tetrad/train/checkpoint/stop_signal.h"
#include "tetrad/train/libtorch_parts.h"
#include "tetrad/train/trainer.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;

// The simulated instant checkpoint `iteration` was taken (rank 0's file).
double clockOf(const CheckpointStore& store, int64_t iteration) {
  const CheckpointSections sections = store.readOf(iteration, 0);
  ByteReader clock(sections.get("clock", store.pathOf(iteration, 0)));
  return clock.get<double>("clock");
}

// Runs one segment; true when it stopped at its event (false: it finished).
bool runSegment(const ResolvedConfig& segment, TrainSummary& summary) {
  try {
    summary = runRealTraining(segment);
    return false;
  } catch (const Interrupted&) {
    if (pendingStopSignal(0) != 0) throw;  // a real SIGINT/SIGTERM: the user's stop
    return true;
  }
}

}  // namespace

TrainSummary runWithMembership(const ResolvedConfig& resolved) {
  ResolvedConfig config = resolved;
  TrainConfig& c = config.given;
  TETRAD_CHECK(c.workers > 0 && fixedHostCount(c.cluster) <= 0, InvalidArgument,
               "--membership needs --workers N on a cluster whose hosts follow the worker "
               "count (sim:BW,LAT or a fat-tree/torus spec without a host count), got {}",
               c.cluster);
  int workers = c.workers;
  if (c.out.empty()) c.out = (fs::path("runs") / defaultRunName(config, workers)).string();
  const std::string folder = c.out;
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  TrainSummary summary;
  for (const MembershipEvent& e : config.membership) {
    ResolvedConfig segment = config;
    segment.stopAfterIteration = e.iteration;
    segment.stopAtClock = e.seconds;
    if (!runSegment(segment, summary)) {
      TETRAD_FAIL(InvalidArgument,
                  "--membership '{}': the run ended (iteration {}) before it; its results are "
                  "in {}",
                  e.text, summary.iterations, folder);
    }
    const CheckpointStore store(folder, 0, 1);
    const CheckpointAt stop = store.latestCompleteOfAnySize();
    TETRAD_CHECK(stop.iteration >= 0, Error, "--membership '{}': no checkpoint at the event in {}",
                 e.text, folder);
    const double eventClock = clockOf(store, stop.iteration);
    const int next = e.join ? workers + e.count : workers - e.count;
    TETRAD_CHECK(next >= 1, InvalidArgument, "--membership '{}': {} workers cannot lose {}", e.text,
                 workers, e.count);
    CheckpointAt from = stop;
    // Survivors that hold the whole run write the event's checkpoint
    // themselves (resolveMembership() allows it only for such methods): the
    // lost workers' files in it are never read (a resize reads rank 0's and
    // each kept worker's own).
    const bool emergency = !e.join && c.churnEmergencyCheckpoint;
    if (!e.join && !emergency) {
      // The crashed worker's run wrote no checkpoint at the event.
      fs::remove_all(fs::path(store.folder()) / fmt::format("iter-{:06}", stop.iteration));
      from = store.latestCompleteOfAnySize();
      TETRAD_CHECK(from.iteration >= 0, InvalidArgument,
                   "--membership '{}': no checkpoint before iteration {} to resume from; use a "
                   "smaller --checkpoint-every than {}",
                   e.text, stop.iteration, c.checkpointEvery);
    }
    const double resumeAt = eventClock + c.churnRestart;
    nlohmann::ordered_json change = {{"event", e.join ? "join" : "leave"},
                                     {"spec", e.text},
                                     {"from", workers},
                                     {"to", next},
                                     {"at_iteration", stop.iteration},
                                     {"at_time", eventClock},
                                     {"resumed_from", from.iteration},
                                     {"emergency_checkpoint", emergency},
                                     {"iterations_lost", stop.iteration - from.iteration},
                                     {"seconds_lost", resumeAt - clockOf(store, from.iteration)}};
    changes.push_back(change);
    c.resume = folder;
    c.workers = next;
    config.resumeAtClock = resumeAt;
    config.membershipNote = change.dump();
    workers = next;
  }
  summary = runRealTraining(config);
  summary.membership = changes.dump();
  std::ofstream(fs::path(folder) / "summary.json") << summary.toJson() << "\n";
  return summary;
}

}  // namespace tetrad::train
