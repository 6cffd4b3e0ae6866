// RunMeter: one rank's running totals of a training run — training time on
// the engine's clock and on the wall, compute and communication seconds,
// bytes sent and received — counted from its construction (after set-up:
// the initial broadcast, seeding servers), with evaluation left out of all
// of them, and the loss/accuracy window of the metrics lines. The worker loop reports what
// happened; the meter keeps the books, so the loop stays a composition.
//
// RankTotals are what every rank contributes at the end; gatherTotals()
// collects them on every rank of the world (one all-gather of bytes: counts
// travel as integers).
//
// Thread-safety: one meter per rank, used by that rank's worker.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tetrad/train/record/run_recorder.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

enum class RankRole : uint8_t { kWorker = 0, kServer = 1, kWorkerAndServer = 2 };
const char* toString(RankRole role);

struct RankTotals {
  RankRole role = RankRole::kWorker;
  uint64_t bytesSent = 0, bytesReceived = 0;
  double computeTime = 0, commTime = 0;
  double codecTime = 0;                           // encode/decode charged (loop/codec_charge.h)
  int64_t updatesApplied = 0;                     // servers (partition 0)
  std::map<int64_t, int64_t> stalenessHistogram;  // servers (partition 0)
};

class RunMeter {
 public:
  explicit RunMeter(Transport& world);

  void addCompute(double seconds) { computeTime_ += seconds; }
  void addComm(double seconds) { commTime_ += seconds; }
  // Compressor work charged to this rank (loop/codec_charge.h); the loop
  // leaves it out of the communication time it brackets.
  void addCodec(double seconds) { codecTime_.fetch_add(seconds); }
  // The exchange that began at `start` (engine seconds), when codecTime()
  // was `codecAtStart`, and ends now: its time minus the codec time charged
  // meanwhile goes to communication.
  void addCommSince(double start, double codecAtStart);
  // The metrics window: one batch's outcome.
  void addBatch(double meanLoss, double correct, int batchSize);
  // Staleness of one of this rank's updates (push-pull), for the window.
  void addStaleness(int64_t staleness);
  // Brackets an evaluation: its time and traffic are excluded.
  void beginEval();
  void endEval();
  // Leaves bytes out of the traffic totals (a server rank's checkpoint
  // traffic, which no bracket can enclose: its task learns of it on arrival).
  void excludeTraffic(uint64_t sent, uint64_t received);

  double trainTime() const;  // engine clock since the start, evaluation excluded
  double wallTime() const;   // wall seconds since the start, evaluation excluded
  double computeTime() const { return computeTime_; }
  double commTime() const { return commTime_; }
  double codecTime() const { return codecTime_.load(); }
  uint64_t bytesSent() const;
  uint64_t bytesReceived() const;
  bool windowEmpty() const { return windowSamples_ == 0; }
  double windowLoss() const;
  double windowAccuracy() const;

  // A metrics line of `kind` at `iteration`; "train" lines close the window.
  MetricsRecord record(const char* kind, int64_t iteration, double epoch);

  RankTotals totals(RankRole role) const;

  // Checkpoints: every total and the metrics window. loadState() continues
  // the books on this meter's engine clock: training time resumes at the
  // saved value (exactly when the clock was brought back to the saved
  // instant, as a resumed simulation is), traffic at the saved counts.
  ByteBuffer saveState() const;
  // `asNewRank`: another worker's books taken by a worker an elastic resize
  // added — its clock and training time, none of its traffic, compute,
  // communication or metrics window.
  void loadState(ConstBytes state, bool asNewRank = false);
  // Adds `seconds` to the training time: time lost (a --membership change).
  void addLostTime(double seconds) { start_ -= seconds; }

 private:
  using Clock = std::chrono::steady_clock;
  Transport& world_;
  double start_;
  Clock::time_point wallStart_;
  uint64_t sentAtStart_, receivedAtStart_;  // set-up traffic before the meter
  double computeTime_ = 0, commTime_ = 0, evalTime_ = 0, evalWall_ = 0;
  // Added by the rank's communication task too (overlapped schedules).
  std::atomic<double> codecTime_ = 0;
  uint64_t evalSent_ = 0, evalReceived_ = 0;
  double evalStart_ = 0;
  Clock::time_point evalWallStart_;
  uint64_t evalSentStart_ = 0, evalReceivedStart_ = 0;
  double windowLoss_ = 0, windowCorrect_ = 0, windowSamples_ = 0;
  double windowStaleness_ = 0, windowUpdates_ = 0;
  int64_t windowMaxStaleness_ = -1;
  double lastLoss_ = 0, lastAccuracy_ = 0;
};

// Every rank's totals, in rank order; every rank of `world` must call it
// with the same `tag` (a collective range, collectives/collective_options.h).
// `withCodec`: the totals carry codec time (runs that charge it); without,
// the message is byte for byte what runs from before codec charging sent, so
// --codec-cost none reproduces their simulated times exactly (the gather is
// inside the engine time the meter reads). The same on every rank.
// `parse` false: the messages are exchanged (and timed) but nothing is
// returned — payload-free runs, whose totals are in a shared table.
std::vector<RankTotals> gatherTotals(Transport& world, const RankTotals& mine, Tag tag,
                                     bool withCodec = true, bool parse = true);

}  // namespace tetrad::train
